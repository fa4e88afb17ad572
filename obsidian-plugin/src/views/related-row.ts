/**
 * One row of the related-notes list. Hierarchy, top to bottom: title and link badge (what and
 * whether it is linked), score and folder (how close, where), heading (which part matched),
 * snippet (the words that matched). Actions sit on the meta line and appear on hover or focus
 * without moving anything.
 */
import type { RelatedHit } from "../api/types";
import { toSnippet } from "../state/text";
import { headingTrail, iconButton, LINK_BADGES, renderBadge, renderScore } from "./dom";

export interface RowHandlers {
	open(hit: RelatedHit, evt: MouseEvent | KeyboardEvent): void;
	insertLink(hit: RelatedHit): void;
	explain(hit: RelatedHit): void;
	hover(hit: RelatedHit, evt: MouseEvent, el: HTMLElement): void;
	dragStart(hit: RelatedHit, evt: DragEvent): void;
}

export function rowLabel(hit: RelatedHit): string {
	const where = hit.folder ? ` in ${hit.folder}` : "";
	return `${hit.title}${where}, ${LINK_BADGES[hit.link_status]?.label.toLowerCase() ?? hit.link_status}, score ${hit.score.toFixed(2)}`;
}

export function renderRelatedRow(list: HTMLElement, hit: RelatedHit, handlers: RowHandlers): HTMLElement {
	const row = list.createDiv({
		cls: "vaultheat-row",
		attr: {
			role: "listitem",
			tabindex: "-1",
			draggable: "true",
			"aria-label": rowLabel(hit),
			"data-path": hit.path,
		},
	});
	const top = row.createDiv({ cls: "vaultheat-row-top" });
	top.createDiv({ cls: "vaultheat-row-title", text: hit.title });
	renderBadge(top, hit.link_status);

	const meta = row.createDiv({ cls: "vaultheat-row-meta" });
	renderScore(meta, hit.score, `Relatedness ${hit.score.toFixed(2)}`);
	meta.createSpan({ cls: "vaultheat-row-folder", text: hit.folder || "Vault root" });
	const actions = meta.createDiv({ cls: "vaultheat-row-actions" });
	iconButton(actions, "link", "Insert link at cursor", () => handlers.insertLink(hit));
	iconButton(actions, "help-circle", "Why is this related?", () => handlers.explain(hit));

	const trail = headingTrail(hit.best_chunk.heading_path, hit.title);
	if (trail) row.createDiv({ cls: "vaultheat-row-heading", text: trail });
	const snippet = toSnippet(hit.best_chunk.text, 220);
	if (snippet) row.createDiv({ cls: "vaultheat-row-snippet", text: snippet });
	if (hit.duplicates.length > 0) {
		const n = hit.duplicates.length;
		row.createDiv({ cls: "vaultheat-row-duplicates", text: `+${n} near-identical ${n === 1 ? "note" : "notes"}` });
	}

	row.addEventListener("click", (evt) => handlers.open(hit, evt));
	row.addEventListener("auxclick", (evt) => {
		if (evt.button === 1) handlers.open(hit, evt);
	});
	row.addEventListener("mouseover", (evt) => handlers.hover(hit, evt, row));
	row.addEventListener("dragstart", (evt) => handlers.dragStart(hit, evt));
	return row;
}
