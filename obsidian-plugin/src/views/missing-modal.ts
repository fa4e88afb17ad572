/**
 * "Why isn't this note here?": where a note the user expected landed in a search and what kept
 * it down, from POST /v1/explain/missing. Top: the headline (its rank, or that the search never
 * looked at it) and the server's reason; then each retriever's place for the note, the result
 * it would have to beat, its best passage, and that passage's score breakdown.
 */
import type { MissingDoc, MissingRequest } from "../api/types";
import { beatSentence, missingHeadline, retrieverSentence } from "../state/missing";
import { basename, toSnippet } from "../state/text";
import type { ViewContext } from "./context";
import { headingTrail } from "./dom";
import { renderBreakdown } from "./explain-modal";
import { TracedModal } from "./traced-modal";

export interface MissingTarget {
	request: MissingRequest;
	/** Where closing returns to (the search it was opened from), unless a note was opened. */
	back?: { label: string; run: () => void };
}

export function openMissing(ctx: ViewContext, target: MissingTarget): MissingModal {
	const modal = new MissingModal(ctx, target);
	modal.open();
	return modal;
}

export class MissingModal extends TracedModal {
	private readonly target: MissingTarget;

	constructor(ctx: ViewContext, target: MissingTarget) {
		super(ctx, target.back);
		this.target = target;
	}

	onOpen(): void {
		const { request } = this.target;
		this.modalEl.addClass("vaultheat-explain-modal");
		this.setTitle(`Where is “${basename(request.path)}”?`);
		const body = this.contentEl;
		body.addClass("vaultheat-explain");
		this.addBack(body.createDiv({ cls: "vaultheat-explain-context", text: `For the search “${request.query}”` }));
		this.load(body, "Looking for the note…", this.ctx.client.explainMissing(request), renderMissing);
	}
}

/** Renders a missing document into `parent` (exported for the unit tests). */
export function renderMissing(parent: HTMLElement, doc: MissingDoc, open: (path: string, line: number) => void): void {
	const section = parent.createDiv({ cls: "vaultheat-explain-section vaultheat-missing" });
	section.createDiv({ cls: "vaultheat-explain-heading", text: missingHeadline(doc) });
	section.createDiv({ cls: "vaultheat-explain-sentence", text: doc.reason });
	if (doc.retrievers.length > 0) {
		const list = section.createEl("ul", { cls: "vaultheat-missing-retrievers" });
		for (const place of doc.retrievers) list.createEl("li", { text: retrieverSentence(place) });
	}
	const beat = beatSentence(doc, basename);
	if (beat && doc.to_beat) {
		const rival = doc.to_beat;
		const line = section.createDiv({ cls: "vaultheat-missing-beat", text: beat });
		line.setAttr("title", rival.path);
		line.addEventListener("click", () => open(rival.path, 1));
	}
	const chunk = doc.best_chunk;
	if (chunk) {
		const best = parent.createDiv({ cls: "vaultheat-explain-section" });
		best.createDiv({ cls: "vaultheat-explain-heading", text: "Its best passage" });
		const link = best.createEl("a", { cls: "vaultheat-step-note", text: basename(doc.path), attr: { href: "#", title: doc.path } });
		link.addEventListener("click", (evt) => {
			evt.preventDefault();
			open(doc.path, chunk.line_start);
		});
		const trail = headingTrail(chunk.heading_path, basename(doc.path));
		if (trail) best.createDiv({ cls: "vaultheat-row-heading", text: trail });
		const snippet = toSnippet(chunk.text, 260);
		if (snippet) best.createDiv({ cls: "vaultheat-step-snippet", text: snippet });
	}
	if (doc.components && doc.score !== null) renderBreakdown(parent, { score: doc.score, components: doc.components });
}
