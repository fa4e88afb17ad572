import { describe, expect, it } from "vitest";
import type { LinkHeat } from "../../src/api/types";
import { heatArithmetic, heatLine, heatSentence, scoreSum } from "../../src/state/linkheat";

const heat = (titles: string[], numbers: Partial<LinkHeat> = {}): LinkHeat => ({
	kind: "ppr",
	heat: 0.0123,
	top: 0.04,
	weight: 0.2,
	bonus: 0.0615,
	via: titles.map((title) => ({ path: `Garden/${title}.md`, title })),
	...numbers,
});

describe("link heat in words", () => {
	it("a row line: the first via note, and how many more", () => {
		expect(heatLine(heat(["Raised Beds"]))).toBe("Via Raised Beds");
		expect(heatLine(heat(["Raised Beds", "Tomatoes", "Compost"]))).toBe("Via Raised Beds and 2 more");
		expect(heatLine(heat(["Raised Beds", "Tomatoes"]))).toBe("Via Raised Beds and 1 more");
	});

	it("no line without link heat or without a via note", () => {
		expect(heatLine(null)).toBe("");
		expect(heatLine(undefined)).toBe("");
		expect(heatLine(heat([]))).toBe("");
	});

	it("a sentence naming the via notes, most telling first", () => {
		expect(heatSentence(heat(["Raised Beds"]))).toBe("Close through your note's links: via Raised Beds.");
		expect(heatSentence(heat(["Raised Beds", "Tomatoes"]))).toBe("Close through your note's links: via Raised Beds, Tomatoes.");
		expect(heatSentence(heat(["Raised Beds", "Tomatoes", "Compost"]), 1)).toBe("Close through your note's links: via Raised Beds, and 2 more.");
		expect(heatSentence(heat([]))).toBe("Close through your note's links.");
	});

	it("the arithmetic: heat over the best heat, times the weight, is the bonus", () => {
		expect(heatArithmetic(heat(["Raised Beds"]))).toBe("heat 0.0123 / best 0.0400 = 0.308 × weight 0.2 = +0.062");
		expect(heatArithmetic(heat(["Raised Beds"], { kind: "ra", heat: 0.5, top: 2, weight: 0.35, bonus: 0.0875 }))).toBe(
			"heat 0.5000 / best 2.0000 = 0.250 × weight 0.35 = +0.088",
		);
		expect(heatArithmetic(heat(["Raised Beds"], { heat: 1.2, top: 1.2, weight: 0.2, bonus: 0.2 }))).toBe("heat 1.2000 / best 1.2000 = 1.000 × weight 0.2 = +0.200");
		// No heat anywhere (top 0): no division by zero.
		expect(heatArithmetic(heat([], { heat: 0, top: 0, bonus: 0 }))).toBe("heat 0.0000 / best 0.0000 = 0.000 × weight 0.2 = +0.000");
	});

	it("the note's score as content + votes + link heat", () => {
		const votes = { count: 2, k: 20, weight: 2, share: 0.2, bonus: 0.4, voters: [] };
		expect(scoreSum({ score: 1.2315, content_score: 0.77, votes }, heat(["Raised Beds"]))).toBe("content 0.770 + votes 0.400 + link heat 0.062 = 1.232");
		expect(scoreSum({ score: 0.8315, content_score: 0.77, votes: null }, heat(["Raised Beds"]))).toBe("content 0.770 + link heat 0.062 = 0.832");
		// An older sidecar without content_score: the content is the score less the bonuses.
		expect(scoreSum({ score: 1.5, votes }, heat(["Raised Beds"], { bonus: 0.1 }))).toBe("content 1.000 + votes 0.400 + link heat 0.100 = 1.500");
	});
});
