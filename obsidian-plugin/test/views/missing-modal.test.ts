import { afterEach, describe, expect, it } from "vitest";
import type { MissingDoc } from "../../src/api/types";
import { beatSentence, missingHeadline, retrieverSentence } from "../../src/state/missing";
import { basename } from "../../src/state/text";
import { renderMissing } from "../../src/views/missing-modal";
import { SearchModal } from "../../src/views/search-modal";
import { flush, json, searchDoc, searchHit } from "../helpers";
import { goOnline, makeWorld, openNote, text, type World } from "../world";

let world: World;
afterEach(() => {
	for (const m of [...(world?.app.openModals ?? [])]) m.close();
	world?.services.dispose();
});

function missingDoc(overrides: Partial<MissingDoc> = {}): MissingDoc {
	return {
		schema: "vaultheat.missing.v1",
		query: "compost",
		path: "Gamma.md",
		files_only: false,
		ranked_by: "meaning",
		status: "not_retrieved",
		reason: "not among the 61 candidate chunks: its best chunk is #119 by cosine (0.024)",
		top: 30,
		candidates: 61,
		rank: null,
		would_rank: 62,
		score: 0.136,
		relevance: 0,
		relevance_label: "weak",
		best_chunk: { chunk_id: 70, heading_path: ["Gamma", "Else"], line_start: 3, line_end: 5, byte_start: 10, byte_end: 60, text: "Something else entirely." },
		components: {
			raw: { vector: 0.024, lexical: 0, heat: 0, fusion: null, rerank: null, title: null, note: null, page: null, pointer: null },
			normalized: { vector: 0.17, lexical: 0, heat: 0, fusion: null, rerank: null, title: null, note: null, page: null, pointer: null },
			weights: { vector: 0.8, lexical: 0.2, heat: 0, fusion: 0, rerank: 0, title: 0, note: 0, page: 0, pointer: 0 },
			final: 0.136,
		},
		explain: null,
		retrievers: [
			{ stage: "vector", rank: 119, score: 0.024, keeps: 40, cutoff: 0.154 },
			{ stage: "lexical", rank: null, score: null, keeps: 40, cutoff: 1.02 },
		],
		to_beat: { rank: 30, path: "Garden/Composting.md", chunk_id: 76, score: 0.674 },
		...overrides,
	};
}

describe("why is a note missing, in words", () => {
	it.each([
		[{}, "Not among the passages the search looked at; it would rank #62"],
		[{ status: "ranked", rank: 45, would_rank: null } as const, "Ranked #45 of 61 passages; the search asked for 30"],
		[{ status: "shown", rank: 3, would_rank: null, files_only: true } as const, "Among the results: #3 of the 30 notes asked for"],
		[{ status: "filtered", would_rank: null } as const, "Left out by the search's filters"],
		[{ status: "not_indexed", would_rank: null } as const, "Not in the index"],
		[{ status: "cut_by_rerank" } as const, "Left out before the reranker; it would rank #62"],
		[{ status: "folded", rank: null, would_rank: null } as const, "Folded into a result above that holds the same text"],
	])("headline %#", (overrides, want) => {
		expect(missingHeadline(missingDoc(overrides))).toBe(want);
	});

	it("says each retriever's place and what the note has to beat", () => {
		const doc = missingDoc();
		expect(retrieverSentence(doc.retrievers[0]!)).toBe("Meaning: #119 in the vault (0.024); the search reads the top 40 (the last 0.154).");
		expect(retrieverSentence(doc.retrievers[1]!)).toBe("Your words: no word of your query is in it.");
		expect(beatSentence(doc, basename)).toBe("To be shown it has to beat #30, Composting (0.674): 0.538 more.");
		expect(beatSentence(missingDoc({ to_beat: null }), basename)).toBeNull();
	});

	it("renders the reason, the retrievers, the rival, the best passage and its breakdown", () => {
		const el = document.createElement("div");
		const opened: [string, number][] = [];
		renderMissing(el, missingDoc(), (p, l) => opened.push([p, l]));
		expect(text(el.querySelector(".vaultheat-missing .vaultheat-explain-sentence"))).toContain("not among the 61 candidate chunks");
		expect(el.querySelectorAll(".vaultheat-missing-retrievers li")).toHaveLength(2);
		(el.querySelector(".vaultheat-missing-beat") as HTMLElement).click();
		(el.querySelector(".vaultheat-step-note") as HTMLElement).click();
		expect(opened).toEqual([["Garden/Composting.md", 1], ["Gamma.md", 3]]);
		expect(text(el.querySelector(".vaultheat-step-snippet"))).toBe("Something else entirely.");
		expect(text(el.querySelector(".is-total"))).toBe("Final score= 0.14");
	});
});

describe("search modal: why isn't the note I came from here?", () => {
	it("offers it when the search leaves the open note out, asks the same search, and returns", async () => {
		world = makeWorld();
		world.transport.on("POST /v1/search", (_req, body) => json(200, searchDoc((body as { query: string }).query, [searchHit("Alpha.md", { title: "Alpha" })])));
		world.transport.on("POST /v1/explain/missing", () => json(200, missingDoc()));
		await goOnline(world);
		await openNote(world, "Gamma.md");
		const modal = new SearchModal(world.services.viewContext());
		modal.open();
		const button = modal.modalEl.querySelector(".vaultheat-search-missing") as HTMLElement;
		expect(button.classList.contains("is-visible")).toBe(false);
		modal.inputEl.value = "compost tag:garden";
		modal.inputEl.dispatchEvent(new Event("input"));
		await world.clock.advance(250);
		await flush();
		expect(text(button)).toBe("Why isn't “Gamma” here?");
		expect(button.classList.contains("is-visible")).toBe(true);
		button.click();
		await flush();
		expect(world.transport.bodies("POST /v1/explain/missing")).toEqual([{ query: "compost", top: 30, tag: "garden", path: "Gamma.md" }]);
		expect(text(document.querySelector(".vaultheat-explain-modal .modal-title"))).toBe("Where is “Gamma”?");
		expect(text(document.querySelector(".vaultheat-missing .vaultheat-explain-heading"))).toBe("Not among the passages the search looked at; it would rank #62");
		world.app.openModals[0]?.close();
		await flush();
		expect(world.app.openModals[0]).toBeInstanceOf(SearchModal);
	});
});
