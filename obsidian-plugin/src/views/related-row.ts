/**
 * One row of the related-notes list. Hierarchy, top to bottom: title and link badge (what and
 * whether it is linked), relevance and folder (how close, where), heading (which part matched),
 * snippet (the words that matched), and one line for the link graph's reason: "Linked by 9
 * neighbours" when close notes link to it, "Via Raised Beds" when it is close through the open
 * note's own links, or both ("Linked by 9 neighbours · via Raised Beds").
 * Actions sit on the meta line and appear on hover or focus without moving anything.
 */
import { Platform } from "obsidian";
import type { RelatedHit } from "../api/types";
import { explainKey } from "../state/keys";
import { shownScore } from "../state/relevance";
import { toSnippet } from "../state/text";
import { heatLine, heatSentence } from "../state/linkheat";
import { votesLine } from "../state/votes";
import { spaceMark } from "../state/space";
import { headingTrail, iconButton, LINK_BADGES, renderBadge, renderRelevance, renderSpaceMark } from "./dom";

export interface RowHandlers {
	open(hit: RelatedHit, evt: MouseEvent | KeyboardEvent): void;
	insertLink(hit: RelatedHit): void;
	explain(hit: RelatedHit): void;
	hover(hit: RelatedHit, evt: MouseEvent, el: HTMLElement): void;
	dragStart(hit: RelatedHit, evt: DragEvent): void;
	/** Shift+click: add to or remove from the selection. */
	toggleSelect(hit: RelatedHit): void;
	contextMenu(hit: RelatedHit, evt: MouseEvent): void;
}

export function rowLabel(hit: RelatedHit): string {
	const where = hit.folder ? ` in ${hit.folder}` : "";
	const shown = shownScore(hit);
	const score = shown.label ? `${shown.label} match, relevance ${shown.text}` : `score ${shown.text}`;
	const votes = votesLine(hit.votes);
	const heat = heatLine(hit.link_heat);
	const space = hit.space === "multilingual" ? ", matched in the multilingual space" : "";
	return `${hit.title}${where}, ${LINK_BADGES[hit.link_status]?.label.toLowerCase() ?? hit.link_status}, ${score}${votes ? `, ${votes.toLowerCase()}` : ""}${heat ? `, ${lowerFirst(heat)}` : ""}${space}`;
}

/**
 * The link graph's reason in one line: the votes line, the link heat line, or both
 * ("Linked by 5 neighbours · via Raised Beds"); "" when neither. `tooltip` names the notes.
 */
export function graphReason(hit: RelatedHit): { text: string; tooltip: string } {
	const votes = votesLine(hit.votes);
	const heat = heatLine(hit.link_heat);
	const text = votes && heat ? `${votes} · ${lowerFirst(heat)}` : votes || heat;
	const tips: string[] = [];
	if (votes) {
		const names = (hit.votes?.voters ?? []).map((v) => v.title).join(", ");
		tips.push(names ? `Linked from ${names}` : votes);
	}
	if (heat && hit.link_heat) tips.push(heatSentence(hit.link_heat, hit.link_heat.via.length));
	return { text, tooltip: tips.join("\n") };
}

/** "Via Raised Beds" → "via Raised Beds" (note titles keep their case). */
function lowerFirst(line: string): string {
	return line.charAt(0).toLowerCase() + line.slice(1);
}

export function renderRelatedRow(list: HTMLElement, hit: RelatedHit, handlers: RowHandlers): HTMLElement {
	const row = list.createDiv({
		cls: "vaultheat-row",
		attr: {
			role: "listitem",
			tabindex: "-1",
			draggable: "true",
			"aria-label": rowLabel(hit),
			"aria-selected": "false",
			"data-path": hit.path,
			"data-score": hit.score.toFixed(4),
		},
	});
	const top = row.createDiv({ cls: "vaultheat-row-top" });
	top.createDiv({ cls: "vaultheat-row-title", text: hit.title });
	renderBadge(top, hit.link_status);

	const meta = row.createDiv({ cls: "vaultheat-row-meta" });
	renderRelevance(meta, hit);
	meta.createSpan({ cls: "vaultheat-row-folder", text: hit.folder || "Vault root" });
	renderSpaceMark(meta, spaceMark(hit, "related"));
	const actions = meta.createDiv({ cls: "vaultheat-row-actions" });
	iconButton(actions, "link", "Insert link at cursor (Alt+Enter)", () => handlers.insertLink(hit));
	iconButton(actions, "help-circle", `Why is this related? (${explainKey(Platform.isMacOS)})`, () => handlers.explain(hit));

	const trail = headingTrail(hit.best_chunk.heading_path, hit.title);
	if (trail) row.createDiv({ cls: "vaultheat-row-heading", text: trail });
	const snippet = toSnippet(hit.best_chunk.text, 220);
	if (snippet) row.createDiv({ cls: "vaultheat-row-snippet", text: snippet });
	const reason = graphReason(hit);
	if (reason.text) row.createDiv({ cls: "vaultheat-row-votes", text: reason.text, attr: { title: reason.tooltip } });
	if (hit.duplicates.length > 0) {
		const n = hit.duplicates.length;
		row.createDiv({ cls: "vaultheat-row-duplicates", text: `+${n} near-identical ${n === 1 ? "note" : "notes"}` });
	}

	row.addEventListener("click", (evt) => {
		if (evt.shiftKey) {
			evt.preventDefault();
			handlers.toggleSelect(hit);
			return;
		}
		handlers.open(hit, evt);
	});
	row.addEventListener("auxclick", (evt) => {
		if (evt.button === 1) handlers.open(hit, evt);
	});
	row.addEventListener("contextmenu", (evt) => {
		evt.preventDefault();
		handlers.contextMenu(hit, evt);
	});
	row.addEventListener("mouseover", (evt) => handlers.hover(hit, evt, row));
	row.addEventListener("dragstart", (evt) => handlers.dragStart(hit, evt));
	return row;
}
