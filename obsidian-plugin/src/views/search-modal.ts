/**
 * "Semantic search": a SuggestModal whose suggestions come from POST /v1/search as you type,
 * one row per note; "+2 more passages" opens the note's other matching passages as rows of
 * their own, each opening at its line. The keys are the sidebar's (state/keys.ts, after Quick
 * switcher): Enter opens at the passage, Mod+Enter in a new tab, Mod+Alt+Enter to the right,
 * Alt+Enter inserts a link (to the section when the match is one), Mod+Shift+Enter explains;
 * the explain view returns to this search. Inline filters (tag:, path:, prop:) are parsed by
 * state/filters.ts and echoed under the input so the user sees what was understood.
 */
import { type Editor, type Instruction, Keymap, Platform, SuggestModal } from "obsidian";
import type { SearchHit } from "../api/types";
import { diagnoseQueryError, diagnoseStatus } from "../state/diagnosis";
import { describeFilters } from "../state/filters";
import { morePassagesText, quotedInPaths, quotedInText, type NoteGroup } from "../state/group";
import { explainKey, keyHelp, ROW_KEY_MODIFIERS, type RowAction, rowAction } from "../state/keys";
import { hiddenNote } from "../state/relevance";
import { PARTIAL_SPACE_NOTICE, type SearchController } from "../state/search";
import { spaceMark } from "../state/space";
import { basename, folderOf, queryTerms, toSnippet } from "../state/text";
import type { ViewContext } from "./context";
import { headingTrail, iconButton, renderDiagnosis, renderHighlighted, renderRelevance, renderSpaceMark } from "./dom";
import { openExplain } from "./explain-modal";
import { openMissing } from "./missing-modal";
import { insertLink, lastMarkdownView, openResult, sectionSubpath } from "./navigation";

/** A row: a note (its best passage), or one of its other passages once opened. */
interface SearchRow {
	group: NoteGroup;
	/** Set for a passage row; the note row shows `group.hit`. */
	passage: SearchHit | null;
}

export class SearchModal extends SuggestModal<SearchRow> {
	private readonly ctx: ViewContext;
	private readonly search: SearchController;
	private readonly editor: Editor | null;
	private readonly sourcePath: string;
	private readonly initialQuery: string;
	private hintEl!: HTMLElement;
	private partialEl!: HTMLElement;
	private missingEl!: HTMLElement;
	private unsubscribe: (() => void) | null = null;
	/** Notes whose other passages are shown, and the answer they belong to. */
	private readonly expanded = new Set<string>();
	private shown: { query: string; groups: NoteGroup[] } | null = null;

	constructor(ctx: ViewContext, initialQuery = "") {
		super(ctx.app);
		this.ctx = ctx;
		this.search = ctx.newSearch();
		this.initialQuery = initialQuery;
		const view = lastMarkdownView(ctx.app);
		this.editor = view?.editor ?? null;
		this.sourcePath = view?.file?.path ?? "";
		this.limit = 50;
		this.emptyStateText = "Type at least two letters. Filters: tag:name path:folder prop:key=value";
		this.setPlaceholder("Search by meaning…");
		const instructions: Instruction[] = [
			{ command: "↑↓", purpose: "to navigate" },
			...keyHelp(Platform.isMacOS).map((k) => ({ command: k.keys, purpose: k.action })),
			{ command: "esc", purpose: "to dismiss" },
		];
		this.setInstructions(instructions);
		for (const mods of ROW_KEY_MODIFIERS) {
			if (mods.length === 0) continue; // plain Enter is the modal's own
			this.scope.register([...mods], "Enter", (evt) => {
				if (evt.isComposing) return; // that Enter ends an IME composition
				this.selectActiveSuggestion(evt);
				return false;
			});
		}
	}

	onOpen(): void {
		void super.onOpen();
		this.modalEl.addClass("vaultheat-search-modal");
		this.hintEl = createDiv({ cls: "vaultheat-search-hint" });
		this.inputEl.insertAdjacentElement("afterend", this.hintEl);
		// The multilingual space is still filling: say that results in other languages may be missing.
		this.partialEl = createDiv({ cls: "vaultheat-search-partial", text: PARTIAL_SPACE_NOTICE });
		this.hintEl.insertAdjacentElement("afterend", this.partialEl);
		this.missingEl = this.missingButton();
		this.partialEl.insertAdjacentElement("afterend", this.missingEl);
		this.unsubscribe = this.search.store.subscribe((state) => {
			this.modalEl.toggleClass("is-loading", state.loading);
			const filters = describeFilters(state.parsed);
			const hidden = hiddenNote(state.hiddenWeak);
			const text = [filters ? `Filtered: ${filters}` : "", hidden].filter(Boolean).join(" · ");
			this.hintEl.setText(text);
			this.hintEl.toggleClass("is-visible", text !== "");
			this.partialEl.toggleClass("is-visible", state.partialSpace);
			// The note you came from is not among the results: offer to say why.
			const away = state.results.every((hit) => hit.path !== this.sourcePath);
			this.missingEl.toggleClass("is-visible", this.sourcePath.endsWith(".md") && state.parsed.query.length >= 2 && !state.loading && away);
		});
		if (this.initialQuery) {
			this.inputEl.value = this.initialQuery;
			this.inputEl.dispatchEvent(new Event("input"));
		}
	}

	onClose(): void {
		this.unsubscribe?.();
		this.search.dispose();
		super.onClose();
	}

	async getSuggestions(query: string): Promise<SearchRow[]> {
		// Opening a note's passages redraws the same answer: no new request.
		if (this.shown?.query !== query) {
			this.expanded.clear();
			this.shown = { query, groups: await this.search.query(query) };
		}
		return this.shown.groups.flatMap((group) => [
			{ group, passage: null },
			...(this.expanded.has(group.hit.path) ? group.more.map((passage) => ({ group, passage })) : []),
		]);
	}

	renderSuggestion(row: SearchRow, el: HTMLElement): void {
		if (row.passage) {
			this.renderPassage(row.passage, el);
			return;
		}
		const { group } = row;
		const { hit } = group;
		const terms = queryTerms(this.search.store.get().parsed.query);
		el.addClass("vaultheat-suggestion");
		el.setAttr("data-path", hit.path);
		el.setAttr("data-line", hit.line_start);
		el.setAttr("data-score", hit.score.toFixed(4));
		if (hit.relevance_label) el.setAttr("data-relevance", hit.relevance_label);
		if (typeof hit.page === "number") el.setAttr("data-page", hit.page);
		const top = el.createDiv({ cls: "vaultheat-suggestion-top" });
		renderHighlighted(top.createDiv({ cls: "vaultheat-suggestion-title" }), hit.title, terms);
		renderRelevance(top, hit);
		renderSpaceMark(top, spaceMark(hit, "search"));
		iconButton(top, "help-circle", `Why does this match? (${explainKey(Platform.isMacOS)})`, () => this.explain(hit));
		const where = [folderOf(hit.path), headingTrail(hit.heading_path, hit.title), pagesText(hit)].filter(Boolean).join(" › ");
		if (where) el.createDiv({ cls: "vaultheat-suggestion-path", text: where });
		const snippet = toSnippet(hit.text, 200);
		if (snippet) renderHighlighted(el.createDiv({ cls: "vaultheat-suggestion-snippet" }), snippet, terms);
		const quoted = quotedInText(group);
		if (quoted) el.createDiv({ cls: "vaultheat-suggestion-duplicates", text: quoted, attr: { title: quotedInPaths(group).join("\n") } });
		const more = morePassagesText(group);
		if (more) {
			const headings = group.more.map((h) => headingTrail(h.heading_path, h.title) || `line ${h.line_start}`);
			const open = this.expanded.has(hit.path);
			const button = el.createEl("button", {
				cls: "vaultheat-suggestion-more",
				text: open ? "Fewer passages" : more,
				attr: { type: "button", title: headings.join("\n"), "aria-expanded": String(open) },
			});
			button.addEventListener("click", (evt) => {
				// a click inside a suggestion would choose it: this one only opens the passages
				evt.preventDefault();
				evt.stopPropagation();
				if (open) this.expanded.delete(hit.path);
				else this.expanded.add(hit.path);
				this.inputEl.dispatchEvent(new Event("input"));
			});
		}
	}

	/** One of a note's other passages, under the note's row. */
	private renderPassage(hit: SearchHit, el: HTMLElement): void {
		const terms = queryTerms(this.search.store.get().parsed.query);
		el.addClass("vaultheat-suggestion", "vaultheat-passage");
		el.setAttr("data-path", hit.path);
		el.setAttr("data-line", hit.line_start);
		el.createDiv({ cls: "vaultheat-suggestion-path", text: headingTrail(hit.heading_path, hit.title) || `Line ${hit.line_start}` });
		const snippet = toSnippet(hit.text, 160);
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
		const hidden = state.hiddenWeak > 0 ? `No strong enough match (${hiddenNote(state.hiddenWeak)}; see settings → Hide weak matches).` : "No matching passages.";
		const text = state.parsed.query.length >= 2 && !state.loading ? hidden : this.emptyStateText;
		this.resultContainerEl.createDiv({ cls: "suggestion-empty", text });
	}

	onChooseSuggestion(row: SearchRow, evt: MouseEvent | KeyboardEvent): void {
		const pane = Keymap.isModEvent(evt);
		const action: RowAction | null =
			evt instanceof KeyboardEvent ? rowAction(evt, Platform.isMacOS) : pane === "split" ? "open-split" : pane ? "open-tab" : "open";
		if (action) this.act(row.passage ?? row.group.hit, action);
	}

	private act(hit: SearchHit, action: RowAction): void {
		switch (action) {
			case "explain":
				this.explain(hit);
				return;
			case "insert-link":
				insertLink(this.app, this.editor, hit.path, this.sourcePath, sectionSubpath(hit.heading_path, hit.title));
				return;
			case "open-tab":
			case "open-split":
			case "open":
				void openResult(this.app, hit.path, hit, action === "open-tab" ? "tab" : action === "open-split" ? "split" : false);
				return;
		}
	}

	private explain(hit: SearchHit): void {
		const query = this.search.store.get().parsed.query;
		const input = this.search.store.get().input;
		this.close();
		openExplain(this.ctx, {
			kind: "search",
			request: { query, chunk_id: hit.chunk_id },
			title: hit.title,
			path: hit.path,
			score: hit.score,
			line: hit.line_start,
			// Escape or "Back to search" returns to this search, as typed.
			back: { label: "Back to search", run: () => new SearchModal(this.ctx, input).open() },
		});
	}

	/** "Why isn't <the note you came from> here?": hidden until a search leaves it out. */
	private missingButton(): HTMLElement {
		const button = createEl("button", {
			cls: "vaultheat-search-missing",
			text: `Why isn't “${basename(this.sourcePath)}” here?`,
			attr: { type: "button" },
		});
		button.addEventListener("click", () => {
			const request = this.search.missingRequest(this.sourcePath);
			if (!request) return;
			const input = this.search.store.get().input;
			this.close();
			openMissing(this.ctx, { request, back: { label: "Back to search", run: () => new SearchModal(this.ctx, input).open() } });
		});
		return button;
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

/** "p. 2" or "pp. 2-3" for a PDF's passage (as the CLI prints it), "" for anything else. */
export function pagesText(hit: { page?: number; page_end?: number; open_page?: number }): string {
	if (typeof hit.page !== "number") return "";
	if (!(typeof hit.page_end === "number" && hit.page_end > hit.page)) return `p. ${hit.page}`;
	const span = `pp. ${hit.page}-${hit.page_end}`;
	// the page it opens at, when the match is past the first (as the CLI says it)
	return typeof hit.open_page === "number" && hit.open_page !== hit.page ? `${span} (match on p. ${hit.open_page})` : span;
}
