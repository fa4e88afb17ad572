/**
 * Link votes (contract "votes") in words. Of the source note's k closest notes, `count` link to
 * the result; `share` is their part of the k scores and `bonus` = weight × share was added.
 */
import type { Votes } from "../api/types";

/** "Linked by 9 neighbours" for a row; "" when no neighbour voted. */
export function votesLine(votes: Votes | null | undefined): string {
	if (!votes || votes.count <= 0) return "";
	return `Linked by ${votes.count} ${votes.count === 1 ? "neighbour" : "neighbours"}`;
}

/** "Linked from 9 of your 20 closest notes: Views (0.84), Bases syntax (0.82), …" */
export function votesSentence(votes: Votes, shown = 6): string {
	const names = votes.voters.slice(0, shown).map((v) => `${v.title} (${v.score.toFixed(2)})`);
	const rest = votes.voters.length - names.length;
	const list = names.join(", ") + (rest > 0 ? `, and ${rest} more` : "");
	const notes = votes.k === 1 ? "closest note" : "closest notes";
	return `Linked from ${votes.count} of your ${votes.k} ${notes}${list ? `: ${list}` : ""}.`;
}

/** The arithmetic, for the explain view: "share 5.69 / 11.46 = 0.497 × weight 2 = +0.993". */
export function votesArithmetic(votes: Votes): string {
	const voterSum = votes.voters.reduce((sum, v) => sum + v.score, 0);
	const total = votes.share > 0 ? voterSum / votes.share : 0;
	const frac = votes.share > 0 ? `${voterSum.toFixed(2)} / ${total.toFixed(2)} = ` : "";
	return `share ${frac}${votes.share.toFixed(3)} × weight ${votes.weight} = +${votes.bonus.toFixed(3)}`;
}
