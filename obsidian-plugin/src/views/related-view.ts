/**
 * The related-notes sidebar. It follows the active Markdown note, re-queries while the user
 * types (through RelatedController's debounce and staleness rules) and renders its state.
 *
 * Rendering is split so typing causes no jank: the list is rebuilt only when the results
 * change; `updating` only toggles a class (a 2 px activity line fades in after a short delay,
 * with no layout shift). Keyboard: arrows/Home/End move between rows, Enter opens, Mod+Enter
 * opens in a new tab, Shift+Enter inserts a link, Alt+Enter explains.
 */
import { type Editor, ItemView, Keymap, MarkdownView, type TFile, type WorkspaceLeaf } from "obsidian";
import type { RelatedHit } from "../api/types";
import { diagnoseQueryError, diagnoseStatus, type Diagnosis } from "../state/diagnosis";
import type { NoteContext, RelatedState } from "../state/related";
import type { AppStatus } from "../state/status";
import { iconButton, renderDiagnosis, renderProgress } from "./dom";
import { openExplain } from "./explain-modal";
import { insertLink, linkTo, openNoteAtLine } from "./navigation";
import { renderRelatedRow } from "./related-row";
import { VIEW_TYPE_RELATED, type ViewContext } from "./context";

export class RelatedView extends ItemView {
	private readonly ctx: ViewContext;
	private source: MarkdownView | null = null;
	private headerTitleEl!: HTMLElement;
	private toggleEl!: HTMLButtonElement;
	private bannerEl!: HTMLElement;
	private bodyEl!: HTMLElement;
	private footerEl!: HTMLElement;
	private listEl: HTMLElement | null = null;
	private renderedResults: RelatedHit[] | null = null;
	private renderedKey = "";
	private focusIndex = 0;

	constructor(leaf: WorkspaceLeaf, ctx: ViewContext) {
		super(leaf);
		this.ctx = ctx;
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
					this.ctx.related.edited(contextOf(info.file, editor));
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
		const header = root.createDiv({ cls: "vaultheat-header" });
		const heading = header.createDiv({ cls: "vaultheat-header-heading" });
		heading.createDiv({ cls: "vaultheat-header-label", text: "Related to" });
		this.headerTitleEl = heading.createDiv({ cls: "vaultheat-header-title" });
		const controls = header.createDiv({ cls: "vaultheat-header-controls" });
		this.toggleEl = controls.createEl("button", {
			cls: "vaultheat-toggle",
			text: "Unlinked only",
			attr: { type: "button", "aria-pressed": "false" },
		});
		this.toggleEl.addEventListener("click", () => {
			this.ctx.related.setUnlinkedOnly(!this.ctx.related.store.get().unlinkedOnly);
		});
		iconButton(controls, "refresh-cw", "Refresh", () => this.ctx.related.refresh());
		header.createDiv({ cls: "vaultheat-activity", attr: { "aria-hidden": "true" } });
		this.bannerEl = root.createDiv({ cls: "vaultheat-banner" });
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
		this.headerTitleEl.setText(state.target?.title ?? "No note open");
		this.headerTitleEl.setAttr("title", state.target?.path ?? "");
		this.renderBanner(state, status);
		this.renderBody(state, status);
		this.renderFooter(state);
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

	private renderBody(state: RelatedState, status: AppStatus): void {
		if (state.results.length > 0) {
			const key = `${state.target?.path ?? ""}`;
			if (state.results !== this.renderedResults || key !== this.renderedKey) this.renderList(state.results);
			this.renderedKey = key;
			return;
		}
		this.renderedResults = null;
		this.listEl = null;
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
				"aria-label": "Related notes. Arrow keys move, Enter opens, Shift+Enter inserts a link, Alt+Enter explains.",
			},
		});
		this.listEl = list;
		const rows = results.map((hit) =>
			renderRelatedRow(list, hit, {
				open: (h, evt) => void openNoteAtLine(this.app, h.path, h.best_chunk.line_start, Keymap.isModEvent(evt)),
				insertLink: (h) => this.insert(h),
				explain: (h) => this.explain(h),
				hover: (h, evt, el) => this.hover(h, evt, el),
				dragStart: (h, evt) => this.dragStart(h, evt),
			}),
		);
		const index = focusedPath ? results.findIndex((h) => h.path === focusedPath) : -1;
		this.focusIndex = Math.max(0, Math.min(index === -1 ? this.focusIndex : index, rows.length - 1));
		rows.forEach((row, i) => row.setAttr("tabindex", i === this.focusIndex ? "0" : "-1"));
		if (hadFocus) rows[this.focusIndex]?.focus();
		list.addEventListener("keydown", (evt) => this.onKey(evt, rows, results));
		list.addEventListener("focusin", (evt) => {
			const i = rows.indexOf(evt.target as HTMLElement);
			if (i !== -1) this.moveFocus(rows, i, false);
		});
	}

	private onKey(evt: KeyboardEvent, rows: HTMLElement[], results: RelatedHit[]): void {
		const hit = results[this.focusIndex];
		switch (evt.key) {
			case "ArrowDown":
				this.moveFocus(rows, this.focusIndex + 1, true);
				break;
			case "ArrowUp":
				this.moveFocus(rows, this.focusIndex - 1, true);
				break;
			case "Home":
				this.moveFocus(rows, 0, true);
				break;
			case "End":
				this.moveFocus(rows, rows.length - 1, true);
				break;
			case "Enter":
				if (!hit) return;
				if (evt.shiftKey) this.insert(hit);
				else if (evt.altKey) this.explain(hit);
				else void openNoteAtLine(this.app, hit.path, hit.best_chunk.line_start, Keymap.isModEvent(evt));
				break;
			default:
				return;
		}
		evt.preventDefault();
	}

	private moveFocus(rows: HTMLElement[], index: number, focus: boolean): void {
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
		if (state.results.length === 0 || state.tookMs === null) return;
		const n = state.results.length;
		this.footerEl.setText(`${n} ${n === 1 ? "note" : "notes"} · ${Math.round(state.tookMs)} ms`);
	}

	private insert(hit: RelatedHit): void {
		const source = this.ctx.related.current?.path ?? "";
		insertLink(this.app, this.sourceEditor, hit.path, source);
	}

	private explain(hit: RelatedHit): void {
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
		const link = linkTo(this.app, hit.path, this.ctx.related.current?.path ?? "");
		if (!link || !evt.dataTransfer) return;
		evt.dataTransfer.setData("text/plain", link);
		evt.dataTransfer.effectAllowed = "copy";
	}
}

function recentMarkdown(leaf: WorkspaceLeaf | null): MarkdownView | null {
	return leaf?.view instanceof MarkdownView ? leaf.view : null;
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
