/**
 * Explain documents in words: which score components contributed how much, and what each step
 * of the graph path means. Pure, so the numbers people read are tested against the document
 * (`final == sum(weight * normalized)` over the components that are not null).
 */
import type { ComponentName, ExplainDoc } from "../api/types";

export const COMPONENT_LABELS: Record<ComponentName, { name: string; help: string }> = {
	vector: { name: "Similar meaning", help: "Says the same thing in other words (embedding similarity)" },
	lexical: { name: "Matched your words", help: "Shares the words you used (keyword match, BM25)" },
	heat: { name: "Linked from a match", help: "Reached through links, tags or similar passages of a match" },
	fusion: { name: "Ranked high by both searches", help: "How high the meaning and keyword searches ranked it, combined (rank fusion)" },
	rerank: { name: "Reread", help: "A second model reread the pair and judged it (cross-encoder)" },
	title: { name: "Named the note", help: "Your query is the note's title, an alias or its file name, or shares its rarer words" },
	note: { name: "Whole note on topic", help: "The note as a whole (its opening and the average of its passages) is about your query" },
	page: { name: "A note, not a digest or list", help: "A note proper scores this; a digest or a list page that only points at notes does not" },
	pointer: { name: "Pointed at by a digest", help: "A digest's or list page's bullet that matched links this note and passed on part of its score (negative: the bullet that gave it)" },
};

const EDGE_LABELS: Record<string, string> = {
	link: "links to",
	backlink: "is linked from",
	similar: "has a similar passage in",
	tag: "shares a tag with",
};

const STAGE_LABELS: Record<string, string> = {
	vector: "Meaning match",
	lexical: "Keyword match",
	both: "Meaning and keyword match",
	query: "Matched your query",
	note: "Matched your note",
	cursor: "Matched the text at your cursor",
	rerank: "Reranker",
	title: "Matched a note name",
	pointer: "Linked from a digest that matched",
};

export interface Contribution {
	component: ComponentName;
	raw: number | null;
	normalized: number | null;
	weight: number;
	/** weight × normalized; null when the component was not used. */
	value: number | null;
}

const ORDER: ComponentName[] = ["vector", "lexical", "heat", "fusion", "rerank", "title", "note", "page", "pointer"];

export function contributions(doc: Pick<ExplainDoc, "components">): Contribution[] {
	const { raw, normalized, weights } = doc.components;
	return ORDER.map((component) => {
		// A component the document leaves out counts as not used (null), never as undefined.
		const n = normalized[component] ?? null;
		const weight = weights[component] ?? 0;
		return { component, raw: raw[component] ?? null, normalized: n, weight, value: n === null ? null : weight * n };
	});
}

/** Sum of the contributions: should equal `components.final`. */
export function contributionTotal(items: readonly Contribution[]): number {
	return items.reduce((sum, c) => sum + (c.value ?? 0), 0);
}

/** "Mostly meaning (0.72 of 0.91), then graph (0.12)." */
export function scoreSentence(doc: Pick<ExplainDoc, "components">): string {
	const used = contributions(doc)
		.filter((c) => c.value !== null && c.value > 0)
		.sort((a, b) => (b.value ?? 0) - (a.value ?? 0));
	const first = used[0];
	if (!first) return "No component added to the score.";
	const final = doc.components.final;
	const lead = `${first.value! >= final * 0.6 ? "Mostly" : "Largest part"}: ${COMPONENT_LABELS[first.component].name.toLowerCase()} (${first.value!.toFixed(2)} of ${final.toFixed(2)})`;
	const rest = used.slice(1, 3).map((c) => `${COMPONENT_LABELS[c.component].name.toLowerCase()} (${c.value!.toFixed(2)})`);
	return rest.length > 0 ? `${lead}, then ${rest.join(" and ")}.` : `${lead}.`;
}

export function edgeLabel(edge: string): string {
	return EDGE_LABELS[edge] ?? edge.replace(/_/g, " ");
}

export function stageLabel(stage: string): string {
	const known = STAGE_LABELS[stage];
	if (known) return known;
	const words = stage.replace(/_/g, " ");
	return words.charAt(0).toUpperCase() + words.slice(1);
}
