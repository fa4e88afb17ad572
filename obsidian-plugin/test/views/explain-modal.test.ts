import { afterEach, describe, expect, it } from "vitest";
import { openExplain, renderExplain } from "../../src/views/explain-modal";
import { apiError, explainDoc, flush, json } from "../helpers";
import { goOnline, makeWorld, text, type World } from "../world";

let world: World;
afterEach(() => {
	for (const m of [...(world?.app.openModals ?? [])]) m.close();
	world?.services.dispose();
});

describe("explain rendering", () => {
	it("says the link votes in words, a row per voter, with the arithmetic", () => {
		const el = document.createElement("div");
		const opened: string[] = [];
		const votes = {
			count: 2,
			k: 20,
			weight: 2,
			share: 0.2,
			bonus: 0.4,
			voters: [
				{ path: "Bases/Views.md", title: "Views", score: 0.84 },
				{ path: "Bases syntax.md", title: "Bases syntax", score: 0.82 },
			],
		};
		renderExplain(el, { ...explainDoc(), votes }, (path) => opened.push(path));
		const section = el.querySelector(".vaultheat-votes")!;
		expect(text(section.querySelector(".vaultheat-explain-sentence"))).toBe("Linked from 2 of your 20 closest notes: Views (0.84), Bases syntax (0.82).");
		expect([...section.querySelectorAll(".vaultheat-voters li")].map((li) => text(li))).toEqual(["Views 0.84", "Bases syntax 0.82"]);
		expect(text(section.querySelector(".vaultheat-edge-math"))).toBe("share 1.66 / 8.30 = 0.200 × weight 2 = +0.400");
		(section.querySelector("a") as HTMLElement).click();
		expect(opened).toEqual(["Bases/Views.md"]);
		const none = document.createElement("div");
		renderExplain(none, { ...explainDoc(), votes: null }, () => undefined);
		expect(none.querySelector(".vaultheat-votes")).toBeNull();
	});

	it("adds link heat to the note's score: the sum, the via notes in words and the arithmetic", () => {
		const el = document.createElement("div");
		const votes = { count: 2, k: 20, weight: 2, share: 0.2, bonus: 0.4, voters: [{ path: "Bases/Views.md", title: "Views", score: 0.84 }] };
		const link_heat = {
			kind: "ppr" as const,
			heat: 0.0123,
			top: 0.04,
			weight: 0.2,
			bonus: 0.0615,
			via: [
				{ path: "Garden/Raised Beds.md", title: "Raised Beds" },
				{ path: "Garden/Tomatoes.md", title: "Tomatoes" },
			],
		};
		renderExplain(el, { ...explainDoc({ score: 1.2315, content_score: 0.77 }), votes, link_heat }, () => undefined);
		expect(text(el.querySelector(".vaultheat-score-sum .vaultheat-edge-math"))).toBe("content 0.770 + votes 0.400 + link heat 0.062 = 1.232");
		const section = el.querySelector(".vaultheat-link-heat")!;
		expect(text(section.querySelector(".vaultheat-explain-sentence"))).toBe("Close through your note's links: via Raised Beds, Tomatoes.");
		expect(text(section.querySelector(".vaultheat-edge-math"))).toBe("heat 0.0123 / best 0.0400 = 0.308 × weight 0.2 = +0.062");
		expect(section.querySelector(".vaultheat-explain-heading")!.getAttribute("title")).toBe("Link heat: personalized PageRank over the link graph");
		// The breakdown is the content score's: no "other passages" note for the bonuses on top.
		expect(el.querySelector(".vaultheat-explain-passage")).toBeNull();
		expect(text(el.querySelector(".vaultheat-explain-final"))).toBe("1.23");

		// Link heat without votes: the sum leaves votes out; without content_score it is the rest of the score.
		const heatOnly = document.createElement("div");
		renderExplain(heatOnly, explainDoc({ score: 0.8, link_heat: { ...link_heat, kind: "ra", bonus: 0.03 } }), () => undefined);
		expect(text(heatOnly.querySelector(".vaultheat-score-sum .vaultheat-edge-math"))).toBe("content 0.770 + link heat 0.030 = 0.800");
		expect(heatOnly.querySelector(".vaultheat-link-heat .vaultheat-explain-heading")!.getAttribute("title")).toBe("Link heat: resource allocation over the link graph");
	});

	it("names the vector space that scored the passage only when the explanation has one", () => {
		const el = document.createElement("div");
		const space = { space: "multilingual" as const, query_language: "en", chunk_language: "de", reason: "the chunk is in de: read in the multilingual space", partial: true };
		renderExplain(el, { ...explainDoc(), space }, () => undefined);
		const line = el.querySelector(".vaultheat-explain-space")!;
		expect(text(line)).toBe("Scored in the multilingual space: this passage is in German, the query in English (still filling)");
		expect(line.getAttribute("title")).toBe("Routing: the chunk is in de: read in the multilingual space");
		expect(line.classList.contains("is-partial")).toBe(true);
		const none = document.createElement("div");
		renderExplain(none, explainDoc(), () => undefined);
		expect(none.querySelector(".vaultheat-explain-space")).toBeNull();
	});

	it("renders a document without link heat as before", () => {
		const votes = { count: 2, k: 20, weight: 2, share: 0.2, bonus: 0.4, voters: [{ path: "Bases/Views.md", title: "Views", score: 0.84 }] };
		const plain = document.createElement("div");
		renderExplain(plain, explainDoc({ votes }), () => undefined);
		expect(plain.querySelector(".vaultheat-score-sum")).toBeNull();
		expect(plain.querySelector(".vaultheat-link-heat")).toBeNull();
		expect([...plain.querySelectorAll(".vaultheat-explain-section")].map((s) => s.className)).toEqual([
			"vaultheat-explain-section",
			"vaultheat-explain-section vaultheat-votes",
			"vaultheat-explain-section",
		]);
		const withNull = document.createElement("div");
		renderExplain(withNull, explainDoc({ votes, link_heat: null }), () => undefined);
		expect(withNull.innerHTML).toBe(plain.innerHTML);
	});

	it("shows the score breakdown as rows that add up", () => {
		const el = document.createElement("div");
		renderExplain(el, explainDoc(), () => undefined);
		expect(text(el.querySelector(".vaultheat-explain-final"))).toBe("0.77");
		expect(text(el.querySelector(".vaultheat-explain-sentence"))).toBe("Mostly: similar meaning (0.72 of 0.77), then linked from a match (0.05).");
		const rows = [...el.querySelectorAll(".vaultheat-breakdown-row:not(.is-header)")].map((r) =>
			[...r.children].map((c) => text(c.firstElementChild?.matches(".vaultheat-score, div:not(.vaultheat-breakdown-help)") ? c.firstElementChild : c)),
		);
		expect(rows).toEqual([
			["Similar meaning", "0.90", "0.700", "× 0.80", "+ 0.72"],
			["Matched your words", "0.00", "0.000", "× 0.10", "+ 0.00"],
			["Linked from a match", "0.50", "0.016", "× 0.10", "+ 0.05"],
			["Ranked high by both searches", "Not used", "–", "× 0.00", "–"],
			["Reread", "Not used", "–", "× 0.00", "–"],
			["Named the note", "Not used", "–", "× 0.00", "–"],
			["Whole note on topic", "Not used", "–", "× 0.00", "–"],
			["A note, not a digest or list", "Not used", "–", "× 0.00", "–"],
			["Pointed at by a digest", "Not used", "–", "× 0.00", "–"],
			["Final score", "", "", "", "= 0.77"],
		]);
		expect(text(el.querySelector(".vaultheat-breakdown-help"))).toBe("Says the same thing in other words (embedding similarity)");
		expect(el.querySelectorAll(".is-unused")).toHaveLength(6); // no fusion part (heat ran), no reranker, no note named, no note part, no page part, no pointer credit
		expect(el.querySelector(".vaultheat-explain-passage")).toBeNull();
	});

	it("says where pointer credit came from and shows what a digest's bullet gave away", () => {
		const base = explainDoc();
		const parts = (value: number) => ({ ...base.components.normalized, pointer: value });
		const given = explainDoc({
			components: { ...base.components, raw: parts(-0.385), normalized: parts(-0.385), weights: { ...base.components.weights, pointer: 1 }, final: 0.385 },
			pointer: {
				text: "its digest's entry at line 5 links Kanban: it gave 0.5 of its score (0.3850) to Kanban",
				gave: 0.385, to: ["Kanban.md"], entry: { path: "Weekly/2021-03-14.md", line_start: 5, line_end: 5 }, received: 0, from: null,
			},
		});
		const el = document.createElement("div");
		const opened: Array<[string, number]> = [];
		renderExplain(el, given, (path, line) => opened.push([path, line]));
		const section = el.querySelector(".vaultheat-pointer")!;
		expect(text(section.querySelector(".vaultheat-explain-heading"))).toBe("Points at another note");
		expect(text(section.querySelector(".vaultheat-explain-sentence"))).toContain("gave 0.5 of its score");
		(section.querySelector("a") as HTMLElement).click();
		expect(opened).toEqual([["Weekly/2021-03-14.md", 5]]);
		const row = [...el.querySelectorAll(".vaultheat-breakdown-row")].find((r) => text(r).startsWith("Pointed at by a digest"))!;
		expect(text(row.lastElementChild)).toBe("− 0.39");
		const received = document.createElement("div");
		renderExplain(received, explainDoc({ pointer: { text: "credited 0.3850 from a digest's entry that links here: 2021-03-14 line 5", gave: 0, to: [], entry: null, received: 0.385, from: { path: "Weekly/2021-03-14.md", line_start: 5, line_end: 5 } } }), () => undefined);
		expect(text(received.querySelector(".vaultheat-pointer .vaultheat-explain-heading"))).toBe("Pointed at by a digest");
		expect(text(received.querySelector(".vaultheat-pointer a"))).toBe("2021-03-14, line 5");
		const none = document.createElement("div");
		renderExplain(none, explainDoc(), () => undefined);
		expect(none.querySelector(".vaultheat-pointer")).toBeNull();
	});

	it("shows the note's score on top and says the breakdown is its best passage's", () => {
		const el = document.createElement("div");
		renderExplain(el, explainDoc({ score: 0.94 }), () => undefined);
		expect(text(el.querySelector(".vaultheat-explain-final"))).toBe("0.94");
		expect(text(el.querySelector(".vaultheat-explain-passage"))).toBe(
			"The note's score also counts its other matching passages; the best passage alone scores 0.77.",
		);
		expect(text(el.querySelector(".is-total"))).toBe("Best passage= 0.77");
	});

	it("a related note's score over its content score is the votes', not other passages", () => {
		const el = document.createElement("div");
		const votes = { count: 2, k: 20, weight: 2, share: 0.2, bonus: 0.4, voters: [] };
		renderExplain(el, explainDoc({ score: 1.17, content_score: 0.77, votes }), () => undefined);
		expect(el.querySelector(".vaultheat-explain-passage")).toBeNull();
		const several = document.createElement("div");
		renderExplain(several, explainDoc({ score: 1.34, content_score: 0.94, votes }), () => undefined);
		expect(text(several.querySelector(".vaultheat-explain-passage"))).toBe(
			"The note's score also counts its other matching passages; the best passage alone scores 0.77.",
		);
	});

	it("a related note's coverage is named where its score exceeds its best passage's", () => {
		const el = document.createElement("div");
		renderExplain(el, explainDoc({ score: 0.99, content_score: 0.99, coverage: 0.22 }), () => undefined);
		expect(text(el.querySelector(".vaultheat-explain-passage"))).toBe(
			"The note's score also counts how much of the open note it speaks to (coverage 0.22); the best passage alone scores 0.77.",
		);
		const both = document.createElement("div");
		renderExplain(both, explainDoc({ score: 1.16, content_score: 1.16, coverage: 0.22 }), () => undefined);
		expect(text(both.querySelector(".vaultheat-explain-passage"))).toBe(
			"The note's score also counts its other matching passages and how much of the open note it speaks to (coverage 0.22); the best passage alone scores 0.77.",
		);
	});

	it("shows the path from the seed through each hop, with snippets", () => {
		const el = document.createElement("div");
		const opened: [string, number][] = [];
		const doc = explainDoc({
			hops: [
				{ hop: 1, from_chunk: 40, to_chunk: 41, edge: "similar", edge_weight: 0.9, type_weight: 1, decay: 0.5, heat: 0.2, hub_factor: 1, path: "Mid.md", heading_path: ["Middle"], text: "## Middle\nA **middle** step." },
				{ hop: 2, from_chunk: 41, to_chunk: 42, edge: "link", edge_weight: 1, type_weight: 1, decay: 0.5, heat: 0.1, hub_factor: 1, path: "Folder/Note.md", heading_path: [], text: "Target text." },
			],
		});
		renderExplain(el, doc, (p, l) => opened.push([p, l]));
		const steps = [...el.querySelectorAll(".vaultheat-path > li")].map((li) => li.className.replace("vaultheat-", "").trim());
		expect(steps).toEqual(["step is-seed", "edge", "step", "edge", "step is-result"]);
		const seed = el.querySelector(".is-seed")!;
		expect(text(seed.querySelector(".vaultheat-step-label"))).toBe("Meaning match");
		expect(text(seed.querySelector(".vaultheat-step-note"))).toBe("A");
		expect(text(seed.querySelector(".vaultheat-row-heading"))).toBe("Start");
		expect(text(seed.querySelector(".vaultheat-step-score"))).toBe("Where the search started (raw score 0.032)");
		const edges = [...el.querySelectorAll(".vaultheat-edge")].map((e) => text(e));
		expect(edges).toEqual([
			"has a similar passage in weight 0.90 × type 1.00 × decay 0.50 → heat 0.200",
			"links to weight 1.00 × type 1.00 × decay 0.50 → heat 0.100",
		]);
		expect(text(el.querySelectorAll(".vaultheat-step-snippet")[1])).toBe("A middle step.");
		expect(text(el.querySelector(".is-result .vaultheat-step-label"))).toBe("Result");
		(el.querySelector(".is-result .vaultheat-step-note") as HTMLElement).click();
		expect(opened).toEqual([["Folder/Note.md", 1]]);
	});

	it.each([
		["no seed", explainDoc({ seed: null, hops: [] }), "Found directly: the score comes from matching this passage, with no graph path."],
		["seed is the result", explainDoc({ seed: { ...explainDoc().seed!, chunk_id: 42 }, hops: [] }), "This passage itself matched."],
	])("explains a direct match (%s)", (_n, doc, want) => {
		const el = document.createElement("div");
		renderExplain(el, doc, () => undefined);
		expect(text(el.querySelector(".vaultheat-explain-note, .vaultheat-edge.is-direct"))).toBe(want);
	});
});

describe("explain modal", () => {
	it("loads the explanation for a related note and shows it", async () => {
		world = makeWorld();
		world.transport.on("POST /v1/explain", () => json(200, explainDoc()));
		await goOnline(world);
		openExplain(world.services.viewContext(), { kind: "related", request: { path: "Alpha.md", text: "x", cursor: 1, target: "Folder/Note.md" }, title: "Note", path: "Folder/Note.md", score: 0.77 });
		expect(text(document.querySelector(".vaultheat-explain .vaultheat-state-title"))).toBe("Tracing the path…");
		await flush();
		expect(text(document.querySelector(".modal-title"))).toBe("Why “Note” is related");
		expect(text(document.querySelector(".vaultheat-explain-context"))).toBe("To Alpha, around your cursor");
		expect(document.querySelector(".vaultheat-explain .is-busy")).toBeNull();
		expect(document.querySelectorAll(".vaultheat-step")).toHaveLength(2);
	});

	it("shows what to do when explain fails", async () => {
		world = makeWorld();
		world.transport.on("POST /v1/explain", () => apiError(404, "not_found", "chunk gone"));
		await goOnline(world);
		openExplain(world.services.viewContext(), { kind: "search", request: { query: "q", chunk_id: 1 }, title: "Note", path: "N.md", score: 0.5 });
		await flush();
		expect(text(document.querySelector(".vaultheat-explain .vaultheat-state-title"))).toBe("Not in the index yet");
	});
});
