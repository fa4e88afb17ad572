/**
 * The related-notes sidebar. It follows the active Markdown note, re-queries while the user
 * types (through RelatedController's debounce and staleness rules) and renders its state.
 *
 * Rendering is split so typing causes no jank: the list is rebuilt only when the results
 * change; `updating` only toggles a class (a 2 px activity line fades in after a short delay,
 * with no layout shift). Keys as in the search modal (state/keys.ts), registered on the view's
 * Scope so they win over global hotkeys while the sidebar has focus: arrows/Home/End move,
 * Enter opens, Mod+Enter opens in a new tab, Mod+Alt+Enter to the right, Alt+Enter inserts a
 * link, Mod+Shift+Enter explains, Space (or Shift+click) selects rows to insert as a list or
 * copy as links, Esc goes back to the editor. The controls sit in the view header as icons, as
 * in the Backlinks pane; a row's context menu has the rest.
 */
import { type App, type Editor, ItemView, Keymap, MarkdownView, Menu, Notice, Platform, Scope, setIcon, type TFile, type WorkspaceLeaf } from "obsidian";
import type { RelatedHit } from "../api/types";
import { keyHelpSentence, ROW_KEY_MODIFIERS, rowAction } from "../state/keys";
import { hiddenNote } from "../state/relevance";
import { folderOf } from "../state/text";
import { diagnoseQueryError, diagnoseStatus, type Diagnosis } from "../state/diagnosis";
import type { NoteContext, NoteSource, RelatedState } from "../state/related";
import { NO_ADDRESS } from "../state/connection";
import { asOf } from "../state/snapshot";
import { PARTIAL_SPACE_NOTICE } from "../state/space";
import type { AppStatus } from "../state/status";
import { renderDiagnosis, renderProgress } from "./dom";
import { openExplain } from "./explain-modal";
import { insertLink, linkList, linkTo, openResult, sectionSubpath } from "./navigation";
import { renderRelatedRow } from "./related-row";
import { VIEW_TYPE_RELATED, type ViewContext } from "./context";

export class RelatedView extends ItemView {
	private readonly ctx: ViewContext;
	private source: MarkdownView | null = null;
	private headerLabelEl!: HTMLElement;
	private headerTitleEl!: HTMLElement;
	private wholeNoteEl!: HTMLElement;
	private toggleEl!: HTMLElement;
	private selectionEl!: HTMLElement;
	private readonly selected = new Set<string>();
	private bannerEl!: HTMLElement;
	private partialEl!: HTMLElement;
	private bodyEl!: HTMLElement;
	private footerEl!: HTMLElement;
	private listEl: HTMLElement | null = null;
	private rows: HTMLElement[] = [];
	private renderedResults: RelatedHit[] | null = null;
	private renderedKey = "";
	private focusIndex = 0;

	constructor(leaf: WorkspaceLeaf, ctx: ViewContext) {
		super(leaf);
		this.ctx = ctx;
		this.scope = this.keys(new Scope(this.app.scope));
	}

	/** The sidebar's keys, asked before the app's hotkeys while the sidebar is active. */
	private keys(scope: Scope): Scope {
		const onRow = (act: (hit: RelatedHit, evt: KeyboardEvent) => void) => (evt: KeyboardEvent) => {
			const i = this.rows.indexOf(activeDocument.activeElement as HTMLElement);
			const hit = this.renderedResults?.[i];
			if (i === -1 || !hit || evt.isComposing) return; // not ours: let it through
			act(hit, evt);
			return false;
		};
		const move = (to: (i: number) => number) => onRow(() => this.moveFocus(to(this.focusIndex), true));
		scope.register([], "ArrowDown", move((i) => i + 1));
		scope.register([], "ArrowUp", move((i) => i - 1));
		scope.register([], "Home", move(() => 0));
		scope.register([], "End", move(() => this.rows.length - 1));
		scope.register([], " ", onRow((hit) => this.toggleSelect(hit)));
		for (const mods of ROW_KEY_MODIFIERS) {
			scope.register([...mods], "Enter", onRow((hit, evt) => this.act(hit, rowAction(evt, Platform.isMacOS))));
		}
		scope.register([], "Escape", (evt) => {
			if (evt.isComposing || !this.source) return;
			this.backToEditor();
			return false;
		});
		return scope;
	}

	private act(hit: RelatedHit, action: ReturnType<typeof rowAction>): void {
		if (action === "insert-link") this.insert(hit);
		else if (action === "explain") this.explain(hit);
		else if (action) void openResult(this.app, hit.path, hit.best_chunk, action === "open-tab" ? "tab" : action === "open-split" ? "split" : false);
	}

	/** Keyboard focus into the list (the "Focus related notes" command). */
	focusList(): void {
		const row = this.rows[this.focusIndex] ?? this.rows[0];
		if (row) row.focus();
		else this.contentEl.focus();
	}

	/** Esc: back to the note the sidebar follows, cursor where it was. */
	backToEditor(): void {
		const source = this.source;
		if (!source) return;
		this.app.workspace.setActiveLeaf(source.leaf, { focus: true });
		source.editor.focus();
	}

	/** "Related notes for selection": answer for `text` of `view`'s note until "Whole note". */
	followSelection(view: MarkdownView, text: string): void {
		const file = view.file;
		if (!file) return;
		this.source = view;
		this.ctx.related.followSelection({ path: file.path, title: file.basename, text, cursor: null });
	}

	getViewType(): string {
		return VIEW_TYPE_RELATED;
	}

	getDisplayText(): string {
		return "Related notes";
	}

	getIcon(): string {
		return "flame";
	}

	async onOpen(): Promise<void> {
		this.build();
		const { app } = this.ctx;
		this.register(this.ctx.related.store.subscribe(() => this.render()));
		this.register(
			this.ctx.status.subscribe((next, previous) => {
				const cameOnline = next.connection.phase === "online" && previous.connection.phase !== "online";
				const reindexed = next.index.revision !== previous.index.revision;
				if (cameOnline || reindexed) this.ctx.related.refresh();
				else this.render();
			}),
		);
		this.registerEvent(app.workspace.on("active-leaf-change", (leaf) => this.onLeaf(leaf)));
		this.registerEvent(
			app.workspace.on("file-open", (file) => {
				if (!file) this.follow(null);
				else this.onLeaf(app.workspace.getMostRecentLeaf());
			}),
		);
		this.registerEvent(
			app.workspace.on("editor-change", (editor, info) => {
				if (info instanceof MarkdownView && info.file && info === this.source) {
					// read when the pause is over, not on every keystroke
					this.ctx.related.edited(sourceOf(info.file, editor));
				}
			}),
		);
		this.registerEvent(
			app.vault.on("rename", (file, oldPath) => {
				if (this.ctx.related.current?.path === oldPath && this.source) this.follow(this.source);
				else if (file.path !== oldPath) this.ctx.related.refresh();
			}),
		);
		app.workspace.onLayoutReady(() => {
			const view = app.workspace.getActiveViewOfType(MarkdownView) ?? recentMarkdown(app.workspace.getMostRecentLeaf());
			this.follow(view);
		});
		this.render();
		await Promise.resolve();
	}

	async onClose(): Promise<void> {
		this.ctx.related.follow(null);
		await Promise.resolve();
	}

	/** The editor links are inserted into: the note the sidebar follows. */
	get sourceEditor(): Editor | null {
		return this.source?.editor ?? null;
	}

	private onLeaf(leaf: WorkspaceLeaf | null): void {
		const view = recentMarkdown(leaf);
		// Focus moving to the sidebar (or any other view) keeps the current note.
		if (view && view !== this.source) this.follow(view);
		else if (view && view.file?.path !== this.ctx.related.current?.path) this.follow(view);
	}

	private follow(view: MarkdownView | null): void {
		this.source = view;
		const file = view?.file ?? null;
		this.ctx.related.follow(view && file ? contextOf(file, view.editor) : null);
	}

	private build(): void {
		const root = this.contentEl;
		root.empty();
		root.addClass("vaultheat-related");
		root.setAttr("tabindex", "-1"); // focusable with no rows, so Esc still leads back
		// Icon toggles in a nav header, as the Backlinks pane has them (sidebars hide the view header).
		const nav = root.createDiv({ cls: "nav-header" }).createDiv({ cls: "nav-buttons-container" });
		this.toggleEl = navButton(nav, "unlink", "Unlinked only", () => {
			this.ctx.related.setUnlinkedOnly(!this.ctx.related.store.get().unlinkedOnly);
		});
		this.toggleEl.addClass("vaultheat-toggle");
		navButton(nav, "refresh-cw", "Refresh", () => this.ctx.related.refresh());
		const header = root.createDiv({ cls: "vaultheat-header" });
		const heading = header.createDiv({ cls: "vaultheat-header-heading" });
		this.headerLabelEl = heading.createDiv({ cls: "vaultheat-header-label", text: "Related to" });
		this.headerTitleEl = heading.createDiv({ cls: "vaultheat-header-title" });
		this.wholeNoteEl = header.createEl("button", { cls: "vaultheat-whole-note", text: "Whole note", attr: { type: "button", "aria-label": "Related notes for the whole note again" } });
		this.wholeNoteEl.addEventListener("click", () => {
			const view = this.source;
			if (view?.file) this.ctx.related.wholeNote(contextOf(view.file, view.editor));
		});
		header.createDiv({ cls: "vaultheat-activity", attr: { "aria-hidden": "true" } });
		this.bannerEl = root.createDiv({ cls: "vaultheat-banner" });
		// The multilingual space is still filling: one line, as the search modal says it.
		this.partialEl = root.createDiv({ cls: "vaultheat-related-partial", text: PARTIAL_SPACE_NOTICE, attr: { role: "status" } });
		this.selectionEl = root.createDiv({ cls: "vaultheat-selection" });
		this.bodyEl = root.createDiv({ cls: "vaultheat-body" });
		this.footerEl = root.createDiv({ cls: "vaultheat-footer", attr: { "aria-live": "polite" } });
	}

	private render(): void {
		if (!this.bodyEl) return;
		const state = this.ctx.related.store.get();
		const status = this.ctx.status.get();
		this.contentEl.toggleClass("is-updating", state.updating && state.target !== null);
		this.toggleEl.setAttr("aria-pressed", String(state.unlinkedOnly));
		this.toggleEl.toggleClass("is-active", state.unlinkedOnly);
		this.headerLabelEl.setText(state.selection ? "Related to the selection in" : "Related to");
		this.wholeNoteEl.toggle(state.selection);
		this.headerTitleEl.setText(state.target?.title ?? "No note open");
		this.headerTitleEl.setAttr("title", state.target?.path ?? "");
		this.renderBanner(state, status);
		this.partialEl.toggleClass("is-visible", state.partialSpace);
		this.renderBody(state, status);
		this.renderSelection(state.results);
		this.renderFooter(state);
	}

	private renderSelection(results: readonly RelatedHit[]): void {
		for (const path of [...this.selected]) if (!results.some((h) => h.path === path)) this.selected.delete(path);
		this.listEl?.querySelectorAll(".vaultheat-row").forEach((row) => {
			const on = this.selected.has(row.getAttribute("data-path") ?? "");
			row.toggleClass("is-selected", on);
			row.setAttr("aria-selected", String(on));
		});
		this.selectionEl.empty();
		const n = this.selected.size;
		if (n === 0) return;
		this.selectionEl.createSpan({ cls: "vaultheat-selection-count", text: `${n} selected` });
		const chosen = results.filter((h) => this.selected.has(h.path));
		const button = (text: string, run: () => void): void => {
			this.selectionEl.createEl("button", { text, attr: { type: "button" } }).addEventListener("click", run);
		};
		button("Insert as list", () => this.insertList(chosen));
		button("Copy as links", () => void this.copyLinks(chosen));
		button("Clear", () => {
			this.selected.clear();
			this.render();
		});
	}

	private toggleSelect(hit: RelatedHit): void {
		if (this.selected.has(hit.path)) this.selected.delete(hit.path);
		else this.selected.add(hit.path);
		this.render();
	}

	private targets(hits: readonly RelatedHit[]): { path: string; subpath: string }[] {
		return hits.map((h) => ({ path: h.path, subpath: sectionSubpath(h.best_chunk.heading_path, h.title) }));
	}

	private insertList(hits: readonly RelatedHit[]): void {
		const editor = this.sourceEditor;
		if (!editor) {
			new Notice("Open a note in an editor to insert the links.");
			return;
		}
		const text = linkList(this.app, this.targets(hits), this.ctx.related.current?.path ?? "");
		if (!text) return;
		editor.replaceSelection(`${text}\n`);
		this.selected.clear();
		this.render();
	}

	private async copyLinks(hits: readonly RelatedHit[]): Promise<void> {
		const text = linkList(this.app, this.targets(hits), this.ctx.related.current?.path ?? "").replace(/^- /gm, "");
		await navigator.clipboard.writeText(text);
		new Notice(`Copied ${hits.length} ${hits.length === 1 ? "link" : "links"}.`);
	}

	private contextMenu(hit: RelatedHit, evt: MouseEvent): void {
		const source = this.ctx.related.current?.path ?? "";
		const menu = new Menu();
		menu.addItem((i) => i.setTitle("Open in new tab").setIcon("file-plus").onClick(() => void openResult(this.app, hit.path, hit.best_chunk, "tab")));
		menu.addItem((i) => i.setTitle("Open to the right").setIcon("separator-vertical").onClick(() => void openResult(this.app, hit.path, hit.best_chunk, "split")));
		menu.addSeparator();
		menu.addItem((i) => i.setTitle("Insert link").setIcon("link").onClick(() => this.insert(hit)));
		menu.addItem((i) =>
			i
				.setTitle("Copy link")
				.setIcon("copy")
				.onClick(() => void this.copyLinks([hit])),
		);
		menu.addItem((i) => i.setTitle("Why is this related?").setIcon("help-circle").onClick(() => this.explain(hit)));
		menu.addSeparator();
		if (source) {
			menu.addItem((i) =>
				i
					.setTitle("Hide this suggestion for this note")
					.setIcon("eye-off")
					.onClick(() => void this.hideFor(source, hit.path)),
			);
		}
		const folder = folderOf(hit.path);
		if (folder) {
			menu.addItem((i) =>
				i
					.setTitle(`Exclude folder “${folder}”`)
					.setIcon("folder-x")
					.onClick(() => void this.excludeFolder(folder)),
			);
		}
		menu.showAtMouseEvent(evt);
	}

	private async hideFor(source: string, target: string): Promise<void> {
		const hidden = { ...this.ctx.settings().hiddenSuggestions };
		hidden[source] = [...new Set([...(hidden[source] ?? []), target])];
		await this.ctx.saveSettings({ hiddenSuggestions: hidden });
		this.ctx.related.refresh();
	}

	/** Excluding a folder changes the whole index, not this note's list: ask first. */
	private async excludeFolder(folder: string): Promise<void> {
		const excluded = this.ctx.settings().excluded;
		if (excluded.includes(`${folder}/`)) return;
		const yes = await this.ctx.confirm({
			title: `Exclude “${folder}” from the index?`,
			body: `Its notes leave the index: search and related notes stop showing them for the whole vault, not only for this note, and the sidecar Vaultheat runs restarts without them. No note is changed. Undo it in settings → Excluded from the index.`,
			yes: "Exclude folder",
		});
		if (!yes) return;
		await this.ctx.saveSettings({ excluded: [...this.ctx.settings().excluded, `${folder}/`] });
		new Notice(`“${folder}” is excluded (settings → Excluded from the index).`);
	}

	private diagnosis(state: RelatedState, status: AppStatus): Diagnosis | null {
		const { vaultPath, canSpawn } = this.ctx;
		const fromStatus = diagnoseStatus(status, vaultPath, canSpawn);
		if (fromStatus && status.connection.phase !== "online") return fromStatus;
		if (state.error) return diagnoseQueryError(state.error, status, vaultPath, canSpawn);
		return fromStatus;
	}

	private renderBanner(state: RelatedState, status: AppStatus): void {
		this.bannerEl.empty();
		if (state.snapshot) {
			this.renderSnapshotBanner(state.snapshot, status);
			return;
		}
		if (state.results.length === 0) return;
		const diagnosis = this.diagnosis(state, status);
		if (diagnosis) {
			renderDiagnosis(this.bannerEl, diagnosis, (a) => this.ctx.fix(a), { compact: true });
			return;
		}
		const progress = status.index.progress;
		if (progress) {
			const note = this.bannerEl.createDiv({ cls: "vaultheat-state is-busy is-compact", attr: { role: "status" } });
			const body = note.createDiv({ cls: "vaultheat-state-body" });
			body.createDiv({ cls: "vaultheat-state-title", text: "Updating the index" });
			renderProgress(body, progress);
		}
	}

	/** The list is the desktop's snapshot: say when it was made, and what changed since. */
	private renderSnapshotBanner(snapshot: NonNullable<RelatedState["snapshot"]>, status: AppStatus): void {
		const note = this.bannerEl.createDiv({ cls: "vaultheat-state is-info is-compact vaultheat-snapshot-banner", attr: { role: "status" } });
		const body = note.createDiv({ cls: "vaultheat-state-body" });
		body.createDiv({ cls: "vaultheat-state-title", text: `From the snapshot, ${asOf(snapshot.at)}` });
		const parts: string[] = [];
		if (snapshot.noteChanged) parts.push("This note changed since, so the list may be out of date.");
		const n = snapshot.changed.length;
		if (n > 0) parts.push(`${n} listed ${n === 1 ? "note" : "notes"} changed since.`);
		// Shown only because no server answered: on a phone with no address set, say what that costs.
		parts.push(status.connection.message === NO_ADDRESS ? "No server on this device: search and explain need one (settings)." : "The sidecar does not answer.");
		body.createDiv({ cls: "vaultheat-state-detail", text: parts.join(" ") });
	}

	private renderBody(state: RelatedState, status: AppStatus): void {
		if (state.results.length > 0) {
			const key = `${state.target?.path ?? ""}`;
			if (state.results !== this.renderedResults || key !== this.renderedKey) this.renderList(state.results);
			this.renderedKey = key;
			return;
		}
		this.renderedResults = null;
		this.listEl = null;
		this.rows = [];
		this.bodyEl.empty();
		const fix = (a: Parameters<ViewContext["fix"]>[0]): void => {
			if (a === "retry") this.ctx.related.refresh();
			this.ctx.fix(a);
		};
		const diagnosis = this.diagnosis(state, status);
		if (diagnosis) {
			renderDiagnosis(this.bodyEl, diagnosis, fix);
			return;
		}
		if (!state.target) {
			renderDiagnosis(this.bodyEl, { title: "No note open", detail: "Open a note to see the notes related to it.", actions: [], tone: "info" }, fix);
			return;
		}
		if (state.snapshot) {
			renderDiagnosis(this.bodyEl, { title: "No related notes in the snapshot", detail: `The snapshot lists none for this note (${asOf(state.snapshot.at)}).`, actions: [], tone: "info" }, fix);
			return;
		}
		if (state.updating || state.resultsFor === null) {
			this.renderSkeleton();
			return;
		}
		renderDiagnosis(
			this.bodyEl,
			state.unlinkedOnly
				? { title: "Nothing unlinked", detail: "Every related note is already linked. Turn off “unlinked only” to see them.", actions: [], tone: "info" }
				: { title: "No related notes yet", detail: "Write a little more, or link this note to others.", actions: [], tone: "info" },
			fix,
		);
	}

	private renderSkeleton(): void {
		const list = this.bodyEl.createDiv({ cls: "vaultheat-skeleton", attr: { "aria-label": "Loading related notes", role: "status" } });
		for (let i = 0; i < 4; i++) {
			const row = list.createDiv({ cls: "vaultheat-skeleton-row" });
			row.createDiv({ cls: "vaultheat-skeleton-line is-title" });
			row.createDiv({ cls: "vaultheat-skeleton-line" });
			row.createDiv({ cls: "vaultheat-skeleton-line is-short" });
		}
	}

	private renderList(results: RelatedHit[]): void {
		const hadFocus = this.listEl?.contains(activeDocument.activeElement) ?? false;
		const focusedPath = hadFocus ? activeDocument.activeElement?.getAttribute("data-path") : null;
		this.bodyEl.empty();
		this.renderedResults = results;
		const list = this.bodyEl.createDiv({
			cls: "vaultheat-list",
			attr: {
				role: "list",
				"aria-label": `Related notes. Arrow keys move, ${keyHelpSentence(Platform.isMacOS)}, Space selects.`,
			},
		});
		this.listEl = list;
		const rows = results.map((hit) =>
			renderRelatedRow(list, hit, {
				open: (h, evt) => void openResult(this.app, h.path, h.best_chunk, Keymap.isModEvent(evt)),
				insertLink: (h) => this.insert(h),
				explain: (h) => this.explain(h),
				hover: (h, evt, el) => this.hover(h, evt, el),
				dragStart: (h, evt) => this.dragStart(h, evt),
				toggleSelect: (h) => this.toggleSelect(h),
				contextMenu: (h, evt) => this.contextMenu(h, evt),
			}),
		);
		this.rows = rows;
		const changed = new Set(this.ctx.related.store.get().snapshot?.changed ?? []);
		rows.forEach((row, i) => {
			const hit = results[i];
			if (!hit || !changed.has(hit.path)) return;
			row.addClass("is-changed");
			row.createDiv({ cls: "vaultheat-row-changed", text: "Changed since the snapshot" });
		});
		const index = focusedPath ? results.findIndex((h) => h.path === focusedPath) : -1;
		this.focusIndex = Math.max(0, Math.min(index === -1 ? this.focusIndex : index, rows.length - 1));
		rows.forEach((row, i) => row.setAttr("tabindex", i === this.focusIndex ? "0" : "-1"));
		if (hadFocus) rows[this.focusIndex]?.focus();
		list.addEventListener("focusin", (evt) => {
			const i = rows.indexOf(evt.target as HTMLElement);
			if (i !== -1) this.moveFocus(i, false);
		});
	}

	private moveFocus(index: number, focus: boolean): void {
		const rows = this.rows;
		if (rows.length === 0) return;
		const next = Math.max(0, Math.min(rows.length - 1, index));
		rows[this.focusIndex]?.setAttr("tabindex", "-1");
		this.focusIndex = next;
		const row = rows[next];
		row?.setAttr("tabindex", "0");
		if (focus) row?.focus();
	}

	private renderFooter(state: RelatedState): void {
		this.footerEl.empty();
		const hidden = hiddenNote(state.hiddenWeak);
		if ((state.results.length === 0 && !hidden) || state.tookMs === null) return;
		const n = state.results.length;
		this.footerEl.setText([`${n} ${n === 1 ? "note" : "notes"}`, hidden].filter(Boolean).join(" · "));
		// Timings are for the curious: a tooltip, not the footer.
		this.footerEl.setAttr("title", `Answered in ${Math.round(state.tookMs)} ms`);
	}

	private insert(hit: RelatedHit): void {
		const source = this.ctx.related.current?.path ?? "";
		insertLink(this.app, this.sourceEditor, hit.path, source, sectionSubpath(hit.best_chunk.heading_path, hit.title));
	}

	private explain(hit: RelatedHit): void {
		if (this.ctx.related.store.get().snapshot) {
			new Notice("Explaining a match needs a server: this list comes from the snapshot.");
			return;
		}
		const request = this.ctx.related.explainRequest(hit.path);
		if (!request) return;
		openExplain(this.ctx, { kind: "related", request, title: hit.title, path: hit.path, score: hit.score });
	}

	private hover(hit: RelatedHit, evt: MouseEvent, el: HTMLElement): void {
		this.app.workspace.trigger("hover-link", {
			event: evt,
			source: VIEW_TYPE_RELATED,
			hoverParent: this,
			targetEl: el,
			linktext: hit.path,
			sourcePath: this.ctx.related.current?.path ?? "",
		});
	}

	private dragStart(hit: RelatedHit, evt: DragEvent): void {
		const link = linkTo(this.app, hit.path, this.ctx.related.current?.path ?? "", sectionSubpath(hit.best_chunk.heading_path, hit.title));
		if (!link || !evt.dataTransfer) return;
		evt.dataTransfer.setData("text/plain", link);
		evt.dataTransfer.effectAllowed = "copy";
	}
}

function navButton(parent: HTMLElement, icon: string, label: string, onClick: () => void): HTMLElement {
	const button = parent.createDiv({ cls: "clickable-icon nav-action-button", attr: { "aria-label": label, role: "button", tabindex: "0" } });
	setIcon(button, icon);
	button.addEventListener("click", onClick);
	button.addEventListener("keydown", (evt) => {
		if (evt.key === "Enter" || evt.key === " ") {
			evt.preventDefault();
			onClick();
		}
	});
	return button;
}

/** Opens (or reveals) the sidebar; with `focus`, moves keyboard focus into its list. */
export async function revealRelated(app: App, options: { focus?: boolean } = {}): Promise<RelatedView | null> {
	const { workspace } = app;
	let leaf = workspace.getLeavesOfType(VIEW_TYPE_RELATED)[0] ?? null;
	if (!leaf) {
		leaf = workspace.getRightLeaf(false);
		await leaf?.setViewState({ type: VIEW_TYPE_RELATED, active: true });
	}
	if (!leaf) return null;
	await workspace.revealLeaf(leaf);
	const view = leaf.view instanceof RelatedView ? leaf.view : null;
	if (options.focus && view) {
		workspace.setActiveLeaf(leaf, { focus: true });
		view.focusList();
	}
	return view;
}

/** "Related notes for selection": the sidebar, answering for the text selected in `view`. */
export async function relatedForSelection(app: App, view: MarkdownView): Promise<RelatedView | null> {
	const text = view.editor.getSelection();
	if (!view.file || !text.trim()) return null;
	const sidebar = await revealRelated(app);
	sidebar?.followSelection(view, text);
	return sidebar;
}

function recentMarkdown(leaf: WorkspaceLeaf | null): MarkdownView | null {
	return leaf?.view instanceof MarkdownView ? leaf.view : null;
}

/** The note being edited, read only when asked (once per typing pause). */
export function sourceOf(file: TFile, editor: Editor): NoteSource {
	return { path: file.path, title: file.basename, read: () => ({ text: editor.getValue(), cursor: editor.posToOffset(editor.getCursor()) }) };
}

export function contextOf(file: TFile, editor: Editor | null): NoteContext {
	if (!editor) return { path: file.path, title: file.basename, text: null, cursor: null };
	return {
		path: file.path,
		title: file.basename,
		text: editor.getValue(),
		cursor: editor.posToOffset(editor.getCursor()),
	};
}
