/**
 * Honest scores (contract "relevance"). The server's `score` is relative to the query's best
 * hit (min-max), so the top row always reads ~1.00; `relevance` is absolute and calibrated, so
 * a weak best match reads weak. Labels come from the server; an older server without them
 * leaves the hit unlabelled and the plugin falls back to the relative score, said as such.
 */
import type { RelevanceLabel } from "../api/types";

/** The "hide weak matches" setting: which labels are shown. */
export type RelevanceThreshold = "all" | "good" | "strong";

export interface Scored {
	score: number;
	relevance?: number;
	relevance_label?: RelevanceLabel;
}

export const LABEL_WORDS: Record<RelevanceLabel, string> = {
	strong: "Strong match",
	good: "Good match",
	weak: "Weak match",
};

const RANK: Record<RelevanceLabel, number> = { weak: 0, good: 1, strong: 2 };

/** Whether `hit` is shown under `threshold`; a hit without a label is always shown. */
export function passesThreshold(hit: Scored, threshold: RelevanceThreshold): boolean {
	if (threshold === "all" || !hit.relevance_label) return true;
	return RANK[hit.relevance_label] >= RANK[threshold];
}

export interface ShownScore {
	/** The value for the bar, 0..1. */
	value: number;
	/** Short text beside the bar: "0.72" (absolute) or "rel. 1.00" (relative, old server). */
	text: string;
	label: RelevanceLabel | null;
	/** Tooltip / aria text in words. */
	words: string;
	absolute: boolean;
}

export function shownScore(hit: Scored): ShownScore {
	if (typeof hit.relevance === "number" && Number.isFinite(hit.relevance)) {
		const value = Math.max(0, Math.min(1, hit.relevance));
		const label = hit.relevance_label ?? null;
		const lead = label ? `${LABEL_WORDS[label]}, ` : "";
		return { value, text: value.toFixed(2), label, words: `${lead}relevance ${value.toFixed(2)} (absolute, comparable across notes and queries)`, absolute: true };
	}
	const value = Math.max(0, Math.min(1, hit.score));
	return {
		value,
		text: hit.score.toFixed(2),
		label: null,
		words: `Score ${hit.score.toFixed(2)}, relative to the best result of this list (this sidecar reports no absolute relevance)`,
		absolute: false,
	};
}

/** "3 weak matches hidden" for the list footer; "" when none. */
export function hiddenNote(hidden: number): string {
	if (hidden <= 0) return "";
	return `${hidden} weak ${hidden === 1 ? "match" : "matches"} hidden`;
}
