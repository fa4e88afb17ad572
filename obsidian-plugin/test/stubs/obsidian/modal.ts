/** Modal, SuggestModal, Scope, Keymap and Notice, laid out with Obsidian's class names. */
import type { App } from "./app";
import { setIcon } from "./icons";

export type Modifier = "Mod" | "Ctrl" | "Meta" | "Shift" | "Alt";
type KeyHandler = (evt: KeyboardEvent, ctx: { modifiers: string; key: string }) => false | unknown;

interface Handler {
	modifiers: Modifier[] | null;
	key: string | null;
	func: KeyHandler;
}

function pressed(evt: KeyboardEvent): Set<Modifier> {
	const out = new Set<Modifier>();
	if (evt.ctrlKey || evt.metaKey) out.add("Mod");
	if (evt.shiftKey) out.add("Shift");
	if (evt.altKey) out.add("Alt");
	return out;
}

export class Scope {
	/** The scope asked next when no handler here took the key (Obsidian's `new Scope(parent)`). */
	readonly parent: Scope | null;
	private handlers: Handler[] = [];
	constructor(parent?: Scope) {
		this.parent = parent ?? null;
	}
	register(modifiers: Modifier[] | null, key: string | null, func: KeyHandler): Handler {
		const handler = { modifiers, key, func };
		this.handlers.push(handler);
		return handler;
	}
	unregister(handler: Handler): void {
		this.handlers = this.handlers.filter((h) => h !== handler);
	}
	/**
	 * Stub-only: runs the handlers matching the key, newest first, until one returns false
	 * (Obsidian's "handled": the default action is prevented); true when one did.
	 */
	handle(evt: KeyboardEvent): boolean {
		const mods = pressed(evt);
		for (const h of [...this.handlers].reverse()) {
			if (h.key !== null && h.key !== evt.key) continue;
			if (h.modifiers !== null) {
				const want = new Set(h.modifiers.map((m) => (m === "Ctrl" || m === "Meta" ? "Mod" : m)));
				if (want.size !== mods.size || [...want].some((m) => !mods.has(m))) continue;
			}
			if (h.func(evt, { modifiers: [...mods].join(","), key: evt.key }) === false) {
				evt.preventDefault();
				return true;
			}
		}
		return false;
	}
}

interface KeymapHost {
	document: Document;
	scope: Scope;
	workspace: { activeLeaf: { view: { scope: Scope | null } } | null };
}

/** The newest App's keymap gets the keys (tests build a new App on the same document). */
let currentKeymap: Keymap | null = null;
const listening = new WeakSet<Document>();

/**
 * Obsidian's keymap, as plugins meet it: it sees every keydown first (capture phase, before
 * any element's listener), asks the active scope — the topmost pushed one (a modal), else the
 * active leaf's view scope, else the app's, where hotkeys live — then its parents; a handler
 * that returns false consumes the key, and DOM listeners never see it.
 */
export class Keymap {
	private readonly host: KeymapHost;
	private readonly stack: Scope[] = [];

	constructor(host: KeymapHost) {
		this.host = host;
		currentKeymap = this;
		const doc = host.document;
		if (!listening.has(doc)) {
			listening.add(doc);
			doc.addEventListener("keydown", (evt) => currentKeymap?.dispatch(evt), true);
		}
	}

	pushScope(scope: Scope): void {
		this.stack.push(scope);
	}

	popScope(scope: Scope): void {
		const i = this.stack.lastIndexOf(scope);
		if (i !== -1) this.stack.splice(i, 1);
	}

	/** Stub-only: the scope asked first. */
	get activeScope(): Scope {
		return this.stack[this.stack.length - 1] ?? this.host.workspace.activeLeaf?.view.scope ?? this.host.scope;
	}

	private dispatch(evt: KeyboardEvent): void {
		for (let scope: Scope | null = this.activeScope; scope; scope = scope.parent) {
			if (scope.handle(evt)) {
				evt.stopPropagation();
				return;
			}
		}
	}

	static isModEvent(evt?: MouseEvent | KeyboardEvent | null): "tab" | "split" | "window" | boolean {
		if (!evt) return false;
		const mod = evt.ctrlKey || evt.metaKey;
		if ("button" in evt && evt.type === "auxclick" && evt.button === 1) return "tab";
		if (mod && evt.altKey && evt.shiftKey) return "window";
		if (mod && evt.altKey) return "split";
		if (mod) return "tab";
		return false;
	}

	static isModifier(evt: MouseEvent | KeyboardEvent, modifier: Modifier): boolean {
		if (modifier === "Mod") return evt.ctrlKey || evt.metaKey;
		if (modifier === "Shift") return evt.shiftKey;
		if (modifier === "Alt") return evt.altKey;
		return modifier === "Ctrl" ? evt.ctrlKey : evt.metaKey;
	}
}

export class Modal {
	app: App;
	scope = new Scope();
	containerEl: HTMLElement;
	modalEl: HTMLElement;
	titleEl: HTMLElement;
	contentEl: HTMLElement;
	headerEl: HTMLElement;
	shouldRestoreSelection = false;
	private isOpen = false;

	constructor(app: App) {
		this.app = app;
		const doc = app.document;
		this.containerEl = doc.createElement("div");
		this.containerEl.className = "modal-container mod-dim";
		const bg = doc.createElement("div");
		bg.className = "modal-bg";
		bg.addEventListener("click", () => this.close());
		this.modalEl = doc.createElement("div");
		this.modalEl.className = "modal";
		this.modalEl.setAttribute("role", "dialog");
		const close = doc.createElement("div");
		close.className = "modal-close-button";
		close.setAttribute("aria-label", "Close");
		setIcon(close, "x");
		close.addEventListener("click", () => this.close());
		this.headerEl = doc.createElement("div");
		this.headerEl.className = "modal-header";
		this.titleEl = doc.createElement("div");
		this.titleEl.className = "modal-title";
		this.headerEl.appendChild(this.titleEl);
		this.contentEl = doc.createElement("div");
		this.contentEl.className = "modal-content";
		this.modalEl.append(close, this.headerEl, this.contentEl);
		this.containerEl.append(bg, this.modalEl);
		this.scope.register([], "Escape", () => {
			this.close();
			return false;
		});
	}

	open(): void {
		if (this.isOpen) return;
		this.isOpen = true;
		this.app.document.body.appendChild(this.containerEl);
		// Like Obsidian: the topmost modal's scope gets the keys, wherever focus is.
		this.app.keymap.pushScope(this.scope);
		this.app.openModals.push(this);
		this.modalEl.tabIndex = -1;
		this.modalEl.focus();
		void this.onOpen();
	}

	close(): void {
		if (!this.isOpen) return;
		this.isOpen = false;
		this.app.keymap.popScope(this.scope);
		this.containerEl.remove();
		this.app.openModals = this.app.openModals.filter((m) => m !== this);
		this.onClose();
	}

	onOpen(): void | Promise<void> {}
	onClose(): void {}

	setTitle(title: string): this {
		this.titleEl.textContent = title;
		return this;
	}

	setContent(content: string | DocumentFragment): this {
		this.contentEl.textContent = "";
		if (typeof content === "string") this.contentEl.textContent = content;
		else this.contentEl.appendChild(content);
		return this;
	}
}

export interface Instruction {
	command: string;
	purpose: string;
}

export abstract class SuggestModal<T> extends Modal {
	limit = 100;
	emptyStateText = "No results found.";
	inputEl: HTMLInputElement;
	resultContainerEl: HTMLElement;
	private readonly instructionsEl: HTMLElement;
	private items: T[] = [];
	private selected = 0;
	private itemEls: HTMLElement[] = [];

	constructor(app: App) {
		super(app);
		const doc = app.document;
		this.modalEl.classList.add("prompt");
		this.modalEl.textContent = "";
		const inputContainer = doc.createElement("div");
		inputContainer.className = "prompt-input-container";
		this.inputEl = doc.createElement("input");
		this.inputEl.className = "prompt-input";
		this.inputEl.type = "text";
		this.inputEl.setAttribute("enterkeyhint", "done");
		inputContainer.appendChild(this.inputEl);
		this.resultContainerEl = doc.createElement("div");
		this.resultContainerEl.className = "prompt-results";
		this.resultContainerEl.setAttribute("role", "listbox");
		this.instructionsEl = doc.createElement("div");
		this.instructionsEl.className = "prompt-instructions";
		this.modalEl.append(inputContainer, this.resultContainerEl, this.instructionsEl);
		this.inputEl.addEventListener("input", () => this.updateSuggestions());
		this.scope.register([], "ArrowDown", () => {
			this.setSelected(this.selected + 1);
			return false;
		});
		this.scope.register([], "ArrowUp", () => {
			this.setSelected(this.selected - 1);
			return false;
		});
		this.scope.register([], "Enter", (evt) => {
			// Obsidian's chooser leaves an Enter that ends an IME composition to the input
			if (evt.isComposing) return;
			this.selectActiveSuggestion(evt);
			return false;
		});
	}

	override onOpen(): void {
		this.inputEl.focus();
		this.updateSuggestions();
	}

	setPlaceholder(placeholder: string): void {
		this.inputEl.placeholder = placeholder;
	}

	setInstructions(instructions: Instruction[]): void {
		this.instructionsEl.textContent = "";
		for (const i of instructions) {
			const el = this.app.document.createElement("div");
			el.className = "prompt-instruction";
			const cmd = this.app.document.createElement("span");
			cmd.className = "prompt-instruction-command";
			cmd.textContent = i.command;
			const purpose = this.app.document.createElement("span");
			purpose.textContent = i.purpose;
			el.append(cmd, purpose);
			this.instructionsEl.appendChild(el);
		}
	}

	onNoSuggestion(): void {
		this.resultContainerEl.textContent = "";
		const el = this.app.document.createElement("div");
		el.className = "suggestion-empty";
		el.textContent = this.emptyStateText;
		this.resultContainerEl.appendChild(el);
	}

	selectSuggestion(value: T, evt: MouseEvent | KeyboardEvent): void {
		this.close();
		this.onChooseSuggestion(value, evt);
	}

	selectActiveSuggestion(evt: MouseEvent | KeyboardEvent): void {
		const item = this.items[this.selected];
		if (item !== undefined) this.selectSuggestion(item, evt);
	}

	abstract getSuggestions(query: string): T[] | Promise<T[]>;
	abstract renderSuggestion(value: T, el: HTMLElement): void;
	abstract onChooseSuggestion(item: T, evt: MouseEvent | KeyboardEvent): void;

	private updateSuggestions(): void {
		const query = this.inputEl.value;
		void Promise.resolve(this.getSuggestions(query)).then((items) => {
			if (this.inputEl.value !== query) return;
			this.render(items.slice(0, this.limit));
		});
	}

	private render(items: T[]): void {
		this.items = items;
		this.selected = 0;
		this.resultContainerEl.textContent = "";
		this.itemEls = [];
		if (items.length === 0) {
			this.onNoSuggestion();
			return;
		}
		items.forEach((item, i) => {
			const el = this.app.document.createElement("div");
			el.className = "suggestion-item mod-complex";
			el.setAttribute("role", "option");
			el.addEventListener("click", (evt) => this.selectSuggestion(item, evt));
			el.addEventListener("mousemove", () => this.setSelected(i));
			this.renderSuggestion(item, el);
			this.resultContainerEl.appendChild(el);
			this.itemEls.push(el);
		});
		this.setSelected(0);
	}

	private setSelected(index: number): void {
		if (this.items.length === 0) return;
		this.selected = (index + this.items.length) % this.items.length;
		this.itemEls.forEach((el, i) => {
			el.classList.toggle("is-selected", i === this.selected);
			el.setAttribute("aria-selected", String(i === this.selected));
		});
	}
}

/** Every notice shown, newest last (stub-only, for assertions). */
export const notices: string[] = [];

export class Notice {
	noticeEl: HTMLElement;
	messageEl: HTMLElement;
	constructor(message: string | DocumentFragment, duration = 5000) {
		const text = typeof message === "string" ? message : (message.textContent ?? "");
		notices.push(text);
		const doc = window.document;
		let container = doc.querySelector(".notice-container");
		if (!container) {
			container = doc.createElement("div");
			container.className = "notice-container";
			doc.body.appendChild(container);
		}
		this.noticeEl = doc.createElement("div");
		this.noticeEl.className = "notice";
		this.messageEl = doc.createElement("div");
		this.messageEl.className = "notice-message";
		this.messageEl.textContent = text;
		this.noticeEl.appendChild(this.messageEl);
		container.appendChild(this.noticeEl);
		if (duration > 0) window.setTimeout(() => this.hide(), duration);
	}
	setMessage(message: string): this {
		this.messageEl.textContent = message;
		return this;
	}
	hide(): void {
		this.noticeEl.remove();
	}
}
