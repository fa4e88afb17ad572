/**
 * "Why isn't this note here?": where a note the user expected landed in a search and what kept
 * it down, from POST /v1/explain/missing. Top: the headline (its rank, or that the search never
 * looked at it) and the server's reason; then each retriever's place for the note, the result
 * it would have to beat, its best passage, and that passage's score breakdown.
 */
import { Modal, setIcon } from "obsidian";
import { toApiError } from "../api/errors";
import type { MissingDoc, MissingRequest } from "../api/types";
import { diagnoseQueryError } from "../state/diagnosis";
import { beatSentence, missingHeadline, retrieverSentence } from "../state/missing";
import { basename, toSnippet } from "../state/text";
import type { ViewContext } from "./context";
import { headingTrail, renderDiagnosis } from "./dom";
import { renderBreakdown } from "./explain-modal";
import { openNoteAtLine } from "./navigation";

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

export class MissingModal extends Modal {
	private readonly ctx: ViewContext;
	private readonly target: MissingTarget;
	private closed = false;
	private leaving = false;

	constructor(ctx: ViewContext, target: MissingTarget) {
		super(ctx.app);
		this.ctx = ctx;
		this.target = target;
	}

	onOpen(): void {
		const { request, back } = this.target;
		this.modalEl.addClass("vaultheat-explain-modal");
		this.setTitle(`Where is “${basename(request.path)}”?`);
		const body = this.contentEl;
		body.addClass("vaultheat-explain");
		const context = body.createDiv({ cls: "vaultheat-explain-context", text: `For the search “${request.query}”` });
		if (back) {
			const button = context.createEl("button", { cls: "vaultheat-explain-back", text: `← ${back.label}`, attr: { type: "button" } });
			button.addEventListener("click", () => this.close());
		}
		const loading = body.createDiv({ cls: "vaultheat-state is-busy", attr: { role: "status" } });
		setIcon(loading.createDiv({ cls: "vaultheat-state-icon" }), "loader");
		loading.createDiv({ cls: "vaultheat-state-title", text: "Looking for the note…" });
		this.ctx.client.explainMissing(request).then(
			(doc) => {
				if (this.closed) return;
				loading.remove();
				renderMissing(body, doc, (path, line) => {
					this.leaving = true;
					this.close();
					void openNoteAtLine(this.app, path, line);
				});
			},
			(err: unknown) => {
				if (this.closed) return;
				loading.remove();
				const diagnosis = diagnoseQueryError(toApiError(err), this.ctx.status.get(), this.ctx.vaultPath, this.ctx.canSpawn);
				renderDiagnosis(body, diagnosis, (a) => {
					this.leaving = true;
					this.close();
					this.ctx.fix(a);
				});
			},
		);
	}

	onClose(): void {
		this.closed = true;
		this.contentEl.empty();
		if (!this.leaving) this.target.back?.run();
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
