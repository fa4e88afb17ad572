/**
 * Workspace, leaves and views: enough of Obsidian's layout for a sidebar view, a Markdown
 * editor (a <textarea> that fires `editor-change` like CodeMirror does and autosaves like
 * Obsidian) and opening files at a line. `mount()` lays it out in a page for the e2e test.
 */
import { Component, type EventRef, Events } from "./events";
import type { Scope } from "./modal";
import type { TFile } from "./vault";
import type { App } from "./app";

export interface EditorPosition {
	line: number;
	ch: number;
}

export type PaneType = "tab" | "split" | "window";

export interface ViewState {
	type: string;
	active?: boolean;
	state?: Record<string, unknown>;
}

export class View extends Component {
	app: App;
	leaf: WorkspaceLeaf;
	containerEl: HTMLElement;
	icon = "file";
	navigation = false;
	/** Hotkeys for when this view is active (the keymap asks it before the app's). */
	scope: Scope | null = null;

	constructor(leaf: WorkspaceLeaf) {
		super();
		this.leaf = leaf;
		this.app = leaf.app;
		this.containerEl = leaf.containerEl.ownerDocument.createElement("div");
		this.containerEl.className = "workspace-leaf-content";
	}

	getViewType(): string {
		return "empty";
	}
	getDisplayText(): string {
		return "";
	}
	getIcon(): string {
		return this.icon;
	}
	async onOpen(): Promise<void> {}
	async onClose(): Promise<void> {}

	/** Stub-only: what Obsidian does when it puts a view into a leaf. */
	async open(): Promise<void> {
		this.containerEl.setAttribute("data-type", this.getViewType());
		this.load();
		await this.onOpen();
	}

	async close(): Promise<void> {
		await this.onClose();
		this.unload();
	}
}

export class ItemView extends View {
	contentEl: HTMLElement;
	private readonly headerEl: HTMLElement;
	private readonly actionsEl: HTMLElement;
	private readonly titleEl: HTMLElement;

	constructor(leaf: WorkspaceLeaf) {
		super(leaf);
		const doc = this.containerEl.ownerDocument;
		this.headerEl = doc.createElement("div");
		this.headerEl.className = "view-header";
		this.titleEl = doc.createElement("div");
		this.titleEl.className = "view-header-title";
		this.actionsEl = doc.createElement("div");
		this.actionsEl.className = "view-actions";
		this.headerEl.append(this.titleEl, this.actionsEl);
		this.contentEl = doc.createElement("div");
		this.contentEl.className = "view-content";
		this.containerEl.append(this.headerEl, this.contentEl);
	}

	override async open(): Promise<void> {
		this.titleEl.textContent = this.getDisplayText();
		await super.open();
	}

	addAction(icon: string, title: string, callback: (evt: MouseEvent) => unknown): HTMLElement {
		const el = this.actionsEl.ownerDocument.createElement("button");
		el.className = "clickable-icon view-action";
		el.setAttribute("aria-label", title);
		el.setAttribute("data-icon", icon);
		el.addEventListener("click", (evt) => callback(evt));
		this.actionsEl.appendChild(el);
		return el;
	}

	/** Stub-only: refresh the header after the file changed. */
	updateHeader(): void {
		this.titleEl.textContent = this.getDisplayText();
	}
}

/** A CodeMirror-shaped editor over a <textarea>. */
export class Editor {
	readonly textarea: HTMLTextAreaElement;
	private readonly onChange: () => void;

	constructor(textarea: HTMLTextAreaElement, onChange: () => void) {
		this.textarea = textarea;
		this.onChange = onChange;
	}

	getValue(): string {
		return this.textarea.value;
	}
	setValue(value: string): void {
		this.textarea.value = value;
	}
	getLine(line: number): string {
		return this.getValue().split("\n")[line] ?? "";
	}
	lineCount(): number {
		return this.getValue().split("\n").length;
	}
	getCursor(_which?: string): EditorPosition {
		return this.offsetToPos(this.textarea.selectionStart ?? 0);
	}
	setCursor(pos: EditorPosition | number, ch?: number): void {
		const p = typeof pos === "number" ? { line: pos, ch: ch ?? 0 } : pos;
		const offset = this.posToOffset(p);
		this.textarea.setSelectionRange(offset, offset);
	}
	getSelection(): string {
		return this.getValue().slice(this.textarea.selectionStart, this.textarea.selectionEnd);
	}
	posToOffset(pos: EditorPosition): number {
		const lines = this.getValue().split("\n");
		let offset = 0;
		for (let i = 0; i < Math.min(pos.line, lines.length); i++) offset += (lines[i]?.length ?? 0) + 1;
		return Math.min(this.getValue().length, offset + pos.ch);
	}
	offsetToPos(offset: number): EditorPosition {
		const before = this.getValue().slice(0, offset).split("\n");
		return { line: before.length - 1, ch: before[before.length - 1]?.length ?? 0 };
	}
	replaceSelection(text: string): void {
		const start = this.textarea.selectionStart;
		const end = this.textarea.selectionEnd;
		const value = this.getValue();
		this.textarea.value = value.slice(0, start) + text + value.slice(end);
		const caret = start + text.length;
		this.textarea.setSelectionRange(caret, caret);
		this.onChange();
	}
	scrollIntoView(range: { from: EditorPosition; to: EditorPosition }, _center?: boolean): void {
		const style = this.textarea.ownerDocument.defaultView?.getComputedStyle(this.textarea);
		const lineHeight = parseFloat(style?.lineHeight ?? "") || 20;
		this.textarea.scrollTop = Math.max(0, range.from.line * lineHeight - this.textarea.clientHeight / 3);
	}
	focus(): void {
		this.textarea.focus();
	}
	hasFocus(): boolean {
		return this.textarea.ownerDocument.activeElement === this.textarea;
	}
}

/** Obsidian saves about two seconds after the last keystroke; the stub saves sooner. */
export const AUTOSAVE_MS = 400;

export class MarkdownView extends ItemView {
	file: TFile | null = null;
	editor: Editor;
	private saveTimer: number | null = null;

	constructor(leaf: WorkspaceLeaf) {
		super(leaf);
		const doc = this.contentEl.ownerDocument;
		const textarea = doc.createElement("textarea");
		textarea.className = "markdown-source-view stub-editor";
		textarea.setAttribute("spellcheck", "false");
		textarea.setAttribute("aria-label", "Note editor");
		this.contentEl.appendChild(textarea);
		this.editor = new Editor(textarea, () => this.changed());
		textarea.addEventListener("input", () => this.changed());
	}

	override getViewType(): string {
		return "markdown";
	}
	override getDisplayText(): string {
		return this.file?.basename ?? "No file";
	}

	/** Stub-only: loads `file` into the editor. */
	async setFile(file: TFile): Promise<void> {
		this.flushSave();
		this.file = file;
		this.editor.setValue(await this.app.vault.read(file));
		this.editor.setCursor({ line: 0, ch: 0 });
		this.updateHeader();
	}

	/** Stub-only: writes pending edits now. */
	flushSave(): void {
		if (this.saveTimer !== null) {
			window.clearTimeout(this.saveTimer);
			this.saveTimer = null;
			if (this.file) void this.app.vault.modify(this.file, this.editor.getValue());
		}
	}

	private changed(): void {
		this.app.workspace.trigger("editor-change", this.editor, this);
		if (this.saveTimer !== null) window.clearTimeout(this.saveTimer);
		this.saveTimer = window.setTimeout(() => {
			this.saveTimer = null;
			if (this.file) void this.app.vault.modify(this.file, this.editor.getValue());
		}, AUTOSAVE_MS);
	}
}

/** What `openFile` and `openLinkText` take (obsidian.d.ts `OpenViewState`). */
export interface OpenViewState {
	state?: Record<string, unknown>;
	eState?: Record<string, unknown>;
	active?: boolean;
}

/**
 * Obsidian's view of a file that is not Markdown (a PDF, a canvas): `eState` is what it was
 * opened with, e.g. `{ subpath: "#page=2" }`, which Obsidian's PDF view turns into the page.
 */
export class FileView extends View {
	file: TFile;
	readonly eState: Record<string, unknown>;

	constructor(leaf: WorkspaceLeaf, file: TFile, eState: Record<string, unknown>) {
		super(leaf);
		this.file = file;
		this.eState = eState;
	}

	override getViewType(): string {
		return this.file.extension;
	}
	override getDisplayText(): string {
		return this.file.basename;
	}
}

/** `parseLinktext` from obsidian.d.ts: "Docs/Manual.pdf#page=2" is path "Docs/Manual.pdf", subpath "#page=2". */
export function parseLinktext(linktext: string): { path: string; subpath: string } {
	const hash = linktext.indexOf("#");
	return hash === -1 ? { path: linktext, subpath: "" } : { path: linktext.slice(0, hash), subpath: linktext.slice(hash) };
}

export class WorkspaceLeaf extends Events {
	app: App;
	view: View;
	containerEl: HTMLElement;
	readonly side: "main" | "right";

	constructor(app: App, side: "main" | "right") {
		super();
		this.app = app;
		this.side = side;
		this.containerEl = app.document.createElement("div");
		this.containerEl.className = "workspace-leaf";
		this.view = new View(this);
		this.containerEl.appendChild(this.view.containerEl);
		// Focus moving into a leaf makes it the active one, as clicking into it does in Obsidian.
		this.containerEl.addEventListener("focusin", () => this.app.workspace.setActiveLeaf(this));
	}

	getViewState(): ViewState {
		return { type: this.view.getViewType() };
	}

	async setViewState(state: ViewState): Promise<void> {
		const factory = this.app.viewRegistry.get(state.type);
		const view = factory ? factory(this) : state.type === "markdown" ? new MarkdownView(this) : new View(this);
		await this.setView(view);
		if (state.active) this.app.workspace.setActiveLeaf(this, { focus: true });
	}

	async openFile(file: TFile, openState?: OpenViewState): Promise<void> {
		if (file.extension !== "md") {
			// Obsidian's PDF and canvas views: the stub keeps what the view was asked to show.
			await this.setView(new FileView(this, file, openState?.eState ?? {}));
			this.app.workspace.trigger("file-open", file);
			if (openState?.active !== false) this.app.workspace.setActiveLeaf(this, { focus: true });
			return;
		}
		if (!(this.view instanceof MarkdownView)) await this.setView(new MarkdownView(this));
		const view = this.view as MarkdownView;
		await view.setFile(file);
		const line = openState?.eState?.["line"];
		if (typeof line === "number") {
			view.editor.setCursor({ line, ch: 0 });
			view.editor.scrollIntoView({ from: { line, ch: 0 }, to: { line, ch: 0 } }, true);
		}
		this.app.workspace.trigger("file-open", file);
		if (openState?.active !== false) this.app.workspace.setActiveLeaf(this, { focus: true });
	}

	isDeferred = false;
	async loadIfDeferred(): Promise<void> {}

	detach(): void {
		void this.view.close();
		this.containerEl.remove();
		this.app.workspace.removeLeaf(this);
	}

	private async setView(view: View): Promise<void> {
		await this.view.close();
		this.view.containerEl.remove();
		this.view = view;
		this.containerEl.appendChild(view.containerEl);
		await view.open();
	}
}

/** What `quit` handlers get: promises the app waits for, at best, before it exits. */
export class Tasks {
	readonly promises: Promise<unknown>[] = [];
	add(callback: () => Promise<unknown>): void {
		this.promises.push(callback());
	}
	addPromise(promise: Promise<unknown>): void {
		this.promises.push(promise);
	}
	isEmpty(): boolean {
		return this.promises.length === 0;
	}
}

export class Workspace extends Events {
	readonly app: App;
	activeLeaf: WorkspaceLeaf | null = null;
	layoutReady = false;
	containerEl: HTMLElement;
	/** Stub-only: the main area and the right sidebar. */
	readonly rootEl: HTMLElement;
	readonly rightEl: HTMLElement;
	private readonly leaves: WorkspaceLeaf[] = [];
	private recentMain: WorkspaceLeaf | null = null;
	private readyCallbacks: (() => unknown)[] = [];

	constructor(app: App) {
		super();
		this.app = app;
		const doc = app.document;
		this.containerEl = doc.createElement("div");
		this.containerEl.className = "workspace";
		this.rootEl = doc.createElement("div");
		this.rootEl.className = "workspace-split mod-root";
		this.rightEl = doc.createElement("div");
		this.rightEl.className = "workspace-split mod-right-split";
		this.containerEl.append(this.rootEl, this.rightEl);
	}

	override on(name: "active-leaf-change", callback: (leaf: WorkspaceLeaf | null) => unknown, ctx?: unknown): EventRef;
	override on(name: "file-open", callback: (file: TFile | null) => unknown, ctx?: unknown): EventRef;
	override on(name: "editor-change", callback: (editor: Editor, info: MarkdownView) => unknown, ctx?: unknown): EventRef;
	override on(name: "quit", callback: (tasks: Tasks) => unknown, ctx?: unknown): EventRef;
	override on(name: "layout-ready" | "hover-link", callback: (...args: unknown[]) => unknown, ctx?: unknown): EventRef;
	// eslint-disable-next-line @typescript-eslint/no-explicit-any -- implementation signature
	override on(name: string, callback: (...args: any[]) => unknown, ctx?: unknown): EventRef {
		return super.on(name, callback, ctx);
	}

	onLayoutReady(callback: () => unknown): void {
		if (this.layoutReady) callback();
		else this.readyCallbacks.push(callback);
	}

	/**
	 * Stub-only: what quitting the app does for plugins: `quit` fires (best effort, "not
	 * guaranteed to actually run"), and plugins are NOT unloaded: `onunload` never runs.
	 */
	async quit(): Promise<void> {
		const tasks = new Tasks();
		this.trigger("quit", tasks);
		await Promise.allSettled(tasks.promises);
	}

	/** Stub-only: fires the onLayoutReady callbacks, as Obsidian does after loading the vault. */
	setLayoutReady(): void {
		this.layoutReady = true;
		for (const cb of this.readyCallbacks.splice(0)) cb();
		this.trigger("layout-ready");
	}

	getLeaf(newLeaf?: PaneType | boolean): WorkspaceLeaf {
		if (!newLeaf) {
			const current = this.recentMain;
			if (current) return current;
		}
		const leaf = new WorkspaceLeaf(this.app, "main");
		this.leaves.push(leaf);
		this.rootEl.appendChild(leaf.containerEl);
		this.showOnly(leaf);
		return leaf;
	}

	getRightLeaf(_split: boolean): WorkspaceLeaf {
		const leaf = new WorkspaceLeaf(this.app, "right");
		this.leaves.push(leaf);
		this.rightEl.appendChild(leaf.containerEl);
		return leaf;
	}

	async revealLeaf(leaf: WorkspaceLeaf): Promise<void> {
		if (leaf.side === "main") this.showOnly(leaf);
		await Promise.resolve();
	}

	getLeavesOfType(type: string): WorkspaceLeaf[] {
		return this.leaves.filter((l) => l.view.getViewType() === type);
	}

	detachLeavesOfType(type: string): void {
		for (const leaf of this.getLeavesOfType(type)) leaf.detach();
	}

	getActiveViewOfType<T extends View>(type: new (...args: never[]) => T): T | null {
		const view = this.activeLeaf?.view;
		return view instanceof type ? view : null;
	}

	getMostRecentLeaf(): WorkspaceLeaf | null {
		return this.recentMain;
	}

	getActiveFile(): TFile | null {
		const view = this.recentMain?.view;
		return view instanceof MarkdownView || view instanceof FileView ? view.file : null;
	}

	setActiveLeaf(leaf: WorkspaceLeaf, _params?: { focus?: boolean }): void {
		if (this.activeLeaf === leaf) return;
		this.activeLeaf = leaf;
		if (leaf.side === "main") {
			this.recentMain = leaf;
			this.showOnly(leaf);
		}
		this.trigger("active-leaf-change", leaf);
	}

	/** Stub-only: every link text `openLinkText` was given, in order. */
	readonly linksOpened: string[] = [];

	/**
	 * As Obsidian does: the link's path picks the file, and its subpath ("#Heading",
	 * "#page=2") travels to the view as `eState.subpath`.
	 */
	async openLinkText(linktext: string, _sourcePath: string, newLeaf?: PaneType | boolean, openViewState?: OpenViewState): Promise<void> {
		this.linksOpened.push(linktext);
		const { path, subpath } = parseLinktext(linktext);
		const file = this.app.vault.getFileByPath(path) ?? this.app.vault.getFileByPath(`${path}.md`);
		if (!file) return;
		const eState = subpath ? { ...openViewState?.eState, subpath } : openViewState?.eState;
		await this.getLeaf(newLeaf).openFile(file, { ...openViewState, ...(eState ? { eState } : {}) });
	}

	removeLeaf(leaf: WorkspaceLeaf): void {
		const i = this.leaves.indexOf(leaf);
		if (i !== -1) this.leaves.splice(i, 1);
		if (this.activeLeaf === leaf) this.activeLeaf = null;
		if (this.recentMain === leaf) this.recentMain = null;
	}

	private showOnly(leaf: WorkspaceLeaf): void {
		for (const l of this.leaves) if (l.side === "main") l.containerEl.classList.toggle("is-hidden", l !== leaf);
	}
}
