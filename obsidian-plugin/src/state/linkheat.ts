/**
 * Link heat in words. The result is close to the source note through the source note's own
 * links (personalized PageRank or resource allocation over the link graph); `via` names the
 * source note's link neighbours next to it, and `bonus` = weight × heat / top was added.
 */
import type { ExplainDoc, LinkHeat } from "../api/types";

/** "Via Raised Beds" (or "Via Raised Beds and 2 more") for a row; "" when no heat or no via note. */
export function heatLine(heat: LinkHeat | null | undefined): string {
	const first = heat?.via[0];
	if (!heat || !first) return "";
	const rest = heat.via.length - 1;
	return `Via ${first.title}${rest > 0 ? ` and ${rest} more` : ""}`;
}

/** "Close through your note's links: via Raised Beds, Tomatoes." */
export function heatSentence(heat: LinkHeat, shown = 6): string {
	const names = heat.via.slice(0, shown).map((v) => v.title);
	const rest = heat.via.length - names.length;
	const list = names.join(", ") + (rest > 0 ? `, and ${rest} more` : "");
	return `Close through your note's links${list ? `: via ${list}` : ""}.`;
}

/** The arithmetic, for the explain view: "heat 0.0123 / best 0.0400 = 0.308 × weight 0.2 = +0.062". */
export function heatArithmetic(heat: LinkHeat): string {
	const ratio = heat.top > 0 ? heat.heat / heat.top : 0;
	return `heat ${fixed(heat.heat, 4)} / best ${fixed(heat.top, 4)} = ${fixed(ratio, 3)} × weight ${heat.weight} = +${fixed(heat.bonus, 3)}`;
}

/**
 * How a related note's score was put together, for the explain view:
 * "content 0.770 + votes 0.400 + link heat 0.062 = 1.232" (votes only when it has them). Without
 * `content_score` (an older sidecar) the content is what the bonuses leave of the score.
 */
export function scoreSum(doc: Pick<ExplainDoc, "score" | "content_score" | "votes">, heat: LinkHeat): string {
	const votes = doc.votes?.bonus ?? 0;
	const content = doc.content_score ?? doc.score - votes - heat.bonus;
	const parts = [`content ${fixed(content, 3)}`];
	if (doc.votes) parts.push(`votes ${fixed(votes, 3)}`);
	parts.push(`link heat ${fixed(heat.bonus, 3)}`);
	return `${parts.join(" + ")} = ${fixed(doc.score, 3)}`;
}

/** `toFixed` that rounds a decimal half up (0.3075 → "0.308"), not down for its binary error. */
function fixed(x: number, digits: number): string {
	const scale = 10 ** digits;
	return (Math.round(x * scale + 1e-9) / scale).toFixed(digits);
}
