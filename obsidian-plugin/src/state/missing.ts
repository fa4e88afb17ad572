/**
 * "Why is this note missing?" in words: where the note landed in the search, what kept it
 * down (each retriever's place for it) and what it would have to beat. Pure, so the sentences
 * people read are tested against the document.
 */
import type { MissingDoc, RetrieverPlace } from "../api/types";

const UNRANKED: Partial<Record<MissingDoc["status"], string>> = {
	not_indexed: "Not in the index",
	no_chunks: "Nothing to search in it",
	no_vectors: "It cannot match by meaning",
	filtered: "Left out by the search's filters",
	folded: "Folded into a result above that holds the same text",
};

/** "Shown at #3", "Ranked #14; the search shows 10", "Not among the 61 candidates". */
export function missingHeadline(doc: MissingDoc): string {
	const fixed = UNRANKED[doc.status];
	if (fixed) return fixed;
	const unit = doc.files_only ? "notes" : "passages";
	if (doc.rank !== null) {
		if (doc.rank <= doc.top) return `Among the results: #${doc.rank} of the ${doc.top} ${unit} asked for`;
		return `Ranked #${doc.rank} of ${doc.candidates} ${unit}; the search asked for ${doc.top}`;
	}
	const would = doc.would_rank !== null ? `; it would rank #${doc.would_rank}` : "";
	if (doc.status === "cut_by_rerank") return `Left out before the reranker${would}`;
	return `Not among the passages the search looked at${would}`;
}

/** "Meaning: #119 in the vault (0.024); the search reads the top 40 (the last 0.154)." */
export function retrieverSentence(place: RetrieverPlace): string {
	const name = place.stage === "vector" ? "Meaning" : "Your words";
	if (place.rank === null || place.score === null) return `${name}: no word of your query is in it.`;
	const last = place.cutoff !== null ? ` (the last ${place.cutoff.toFixed(3)})` : "";
	const inside = place.rank <= place.keeps ? ", inside" : "";
	return `${name}: #${place.rank} in the vault (${place.score.toFixed(3)})${inside}; the search reads the top ${place.keeps}${last}.`;
}

/** "To be shown it has to beat #10, Budget (0.501): 0.031 more." */
export function beatSentence(doc: MissingDoc, title: (path: string) => string): string | null {
	const rival = doc.to_beat;
	if (!rival || doc.score === null) return null;
	const gap = rival.score - doc.score;
	const what = doc.rank !== null && doc.rank <= doc.top ? "To move up" : "To be shown";
	return `${what} it has to beat #${rival.rank}, ${title(rival.path)} (${rival.score.toFixed(3)}): ${gap.toFixed(3)} more.`;
}
