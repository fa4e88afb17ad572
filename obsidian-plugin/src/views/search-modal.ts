/**
 * "Semantic search": a SuggestModal whose suggestions come from POST /v1/search as you type.
 * Enter opens the note at the passage, Mod+Enter inserts a link into the note being edited,
 * Alt+Enter explains. Inline filters (tag:, path:, prop:) are parsed by state/filters.ts and
 * echoed under the input so the user sees what was understood.
 */
import { type Editor, type Instruction, Keymap, Platform, SuggestModal } from "obsidian";
import type { SearchHit } from "../api/types";
import { diagnoseQueryError, diagnoseStatus } from "../state/diagnosis";
import { describeFilters } from "../state/filters";
import type { SearchController } from "../state/search";
import { folderOf, queryTerms, toSnippet } from "../state/text";
import type { ViewContext } from "./context";
import { formatScore, headingTrail, iconButton, renderDiagnosis, renderHighlighted } from "./dom";
import { openExplain } from "./explain-modal";
import { insertLink, lastMarkdownView, openNoteAtLine } from "./navigation";

export class SearchModal extends SuggestModal<SearchHit> {
	private readonly ctx: ViewContext;
	private readonly search: SearchController;
	private readonly editor: Editor | null;
	private readonly sourcePath: string;
	private hintEl!: HTMLElement;
	private unsubscribe: (() => void) | null = null;

	constructor(ctx: ViewContext) {
		super(ctx.app);
		this.ctx = ctx;
		this.search = ctx.newSearch();
		const view = lastMarkdownView(ctx.app);
		this.editor = view?.editor ?? null;
		this.sourcePath = view?.file?.path ?? "";
		this.limit = 50;
		this.emptyStateText = "Type at least two letters. Filters: tag:name path:folder prop:key=value";
		this.setPlaceholder("Search by meaning…");
		const mod = Platform.isMacOS ? "⌘" : "Ctrl";
		const instructions: Instruction[] = [
			{ command: "↑↓", purpose: "to navigate" },
			{ command: "↵", purpose: "to open" },
			{ command: `${mod} ↵`, purpose: "to insert a link" },
			{ command: "Alt ↵", purpose: "to explain" },
			{ command: "esc", purpose: "to dismiss" },
		];
		this.setInstructions(instructions);
		this.scope.register(["Mod"], "Enter", (evt) => {
			this.selectActiveSuggestion(evt);
			return false;
		});
		this.scope.register(["Alt"], "Enter", (evt) => {
			this.selectActiveSuggestion(evt);
			return false;
		});
	}

	onOpen(): void {
		void super.onOpen();
		this.modalEl.addClass("vaultheat-search-modal");
		this.hintEl = createDiv({ cls: "vaultheat-search-hint" });
		this.inputEl.insertAdjacentElement("afterend", this.hintEl);
		this.unsubscribe = this.search.store.subscribe((state) => {
			this.modalEl.toggleClass("is-loading", state.loading);
			const filters = describeFilters(state.parsed);
			this.hintEl.setText(filters ? `Filtered: ${filters}` : "");
			this.hintEl.toggleClass("is-visible", filters !== "");
		});
	}

	onClose(): void {
		this.unsubscribe?.();
		this.search.dispose();
		super.onClose();
	}

	getSuggestions(query: string): Promise<SearchHit[]> {
		return this.search.query(query);
	}

	renderSuggestion(hit: SearchHit, el: HTMLElement): void {
		const terms = queryTerms(this.search.store.get().parsed.query);
		el.addClass("vaultheat-suggestion");
		el.setAttr("data-path", hit.path);
		el.setAttr("data-line", hit.line_start);
		const top = el.createDiv({ cls: "vaultheat-suggestion-top" });
		renderHighlighted(top.createDiv({ cls: "vaultheat-suggestion-title" }), hit.title, terms);
		top.createSpan({ cls: "vaultheat-suggestion-score", text: formatScore(hit.score), attr: { "aria-label": `Score ${formatScore(hit.score)}` } });
		iconButton(top, "help-circle", "Why does this match?", () => this.explain(hit));
		const where = [folderOf(hit.path), headingTrail(hit.heading_path, hit.title)].filter(Boolean).join(" › ");
		if (where) el.createDiv({ cls: "vaultheat-suggestion-path", text: where });
		const snippet = toSnippet(hit.text, 200);
		if (snippet) renderHighlighted(el.createDiv({ cls: "vaultheat-suggestion-snippet" }), snippet, terms);
	}

	onNoSuggestion(): void {
		const state = this.search.store.get();
		this.resultContainerEl.empty();
		if (state.error) {
			const diagnosis = diagnoseQueryError(state.error, this.ctx.status.get(), this.ctx.vaultPath, this.ctx.canSpawn);
			renderDiagnosis(this.resultContainerEl, diagnosis, (a) => {
				this.close();
				this.ctx.fix(a);
			});
			return;
		}
		if (this.showStatusProblem()) return;
		const text = state.parsed.query.length >= 2 && !state.loading ? "No matching passages." : this.emptyStateText;
		this.resultContainerEl.createDiv({ cls: "suggestion-empty", text });
	}

	onChooseSuggestion(hit: SearchHit, evt: MouseEvent | KeyboardEvent): void {
		if (evt.altKey) {
			this.explain(hit);
			return;
		}
		if (evt instanceof KeyboardEvent && (evt.ctrlKey || evt.metaKey)) {
			insertLink(this.app, this.editor, hit.path, this.sourcePath);
			return;
		}
		void openNoteAtLine(this.app, hit.path, hit.line_start, evt instanceof MouseEvent ? Keymap.isModEvent(evt) : false);
	}

	private explain(hit: SearchHit): void {
		const query = this.search.store.get().parsed.query;
		this.close();
		openExplain(this.ctx, {
			kind: "search",
			request: { query, chunk_id: hit.chunk_id },
			title: hit.title,
			path: hit.path,
			score: hit.score,
			line: hit.line_start,
		});
	}

	/** Offline, wrong token, no index: say so before the user types into the void. */
	private showStatusProblem(): boolean {
		const diagnosis = diagnoseStatus(this.ctx.status.get(), this.ctx.vaultPath, this.ctx.canSpawn);
		if (!diagnosis || diagnosis.tone === "busy" || this.inputEl.value.trim().length >= 2) return false;
		this.resultContainerEl.empty();
		renderDiagnosis(this.resultContainerEl, diagnosis, (a) => {
			this.close();
			this.ctx.fix(a);
		});
		return true;
	}
}
