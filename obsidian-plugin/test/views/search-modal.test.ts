import { afterEach, describe, expect, it } from "vitest";
import { SearchModal } from "../../src/views/search-modal";
import { apiError, explainDoc, flush, json, searchDoc, searchHit } from "../helpers";
import { goOnline, key, makeWorld, openNote, text, type World } from "../world";

let world: World;
afterEach(() => {
	for (const m of [...(world?.app.openModals ?? [])]) m.close();
	world?.services.dispose();
});

async function setup() {
	world = makeWorld();
	world.transport.on("POST /v1/search", (_req, body) => {
		const q = (body as { query: string }).query;
		return json(200, searchDoc(q, [
			searchHit("Projects/Beta.md", { title: "Beta", heading_path: ["Beta", "Soil"], line_start: 3, text: "Compost keeps the soil alive.", score: 0.88, duplicates: ["News/2021-06-22.md", "News/2021-w25.md"] }),
			searchHit("Alpha.md", { title: "Alpha", chunk_id: 9, heading_path: [], line_start: 1, text: "# Alpha\nGardening notes.", score: 0.51 }),
		]));
	});
	await goOnline(world);
	const editor = await openNote(world, "Gamma.md");
	const modal = new SearchModal(world.services.viewContext());
	modal.open();
	return { modal, editor };
}

async function search(modal: SearchModal, query: string) {
	modal.inputEl.value = query;
	modal.inputEl.dispatchEvent(new Event("input"));
	await world.clock.advance(250);
	await flush();
}

describe("search modal", () => {
	it("says under a note how many notes repeating its passage were folded into it", async () => {
		const { modal } = await setup();
		await search(modal, "compost");
		const rows = [...modal.resultContainerEl.querySelectorAll(".vaultheat-suggestion")];
		const beta = rows.find((r) => r.getAttribute("data-path") === "Projects/Beta.md");
		const alpha = rows.find((r) => r.getAttribute("data-path") === "Alpha.md");
		const line = beta?.querySelector(".vaultheat-suggestion-duplicates");
		expect(line?.textContent).toBe("Also in 2 notes that repeat it");
		expect(line?.getAttribute("title")).toBe("News/2021-06-22.md\nNews/2021-w25.md");
		expect(alpha?.querySelector(".vaultheat-suggestion-duplicates")).toBeNull();
	});

	it("shows a hint before typing and the instructions", async () => {
		const { modal } = await setup();
		await flush();
		expect(text(modal.resultContainerEl)).toContain("Type at least two letters");
		expect(modal.inputEl.placeholder).toBe("Search by meaning…");
		const instructions = [...modal.modalEl.querySelectorAll(".prompt-instruction")].map((e) => [...e.children].map((c) => text(c)).join(" "));
		expect(instructions).toEqual(["↑↓ to navigate", "↵ to open", "Ctrl ↵ to open in a new tab", "Ctrl Alt ↵ to open to the right", "Alt ↵ to insert a link", "Ctrl Shift ↵ to explain", "esc to dismiss"]);
	});

	it("searches at once and renders title, score, place and highlighted snippet", async () => {
		const { modal } = await setup();
		modal.inputEl.value = "compost soil";
		modal.inputEl.dispatchEvent(new Event("input"));
		await flush();
		expect(world.transport.bodies("POST /v1/search")).toEqual([{ query: "compost soil", top: 30 }]);
		const items = modal.resultContainerEl.querySelectorAll(".suggestion-item");
		expect(items).toHaveLength(2);
		expect(text(items[0]!.querySelector(".vaultheat-suggestion-title"))).toBe("Beta");
		expect(text(items[0]!.querySelector(".vaultheat-score-value"))).toBe("0.88");
		expect(text(items[0]!.querySelector(".vaultheat-suggestion-path"))).toBe("Projects › Soil");
		expect([...items[0]!.querySelectorAll("mark")].map((m) => m.textContent)).toEqual(["Compost", "soil"]);
		expect(text(items[1]!.querySelector(".vaultheat-suggestion-snippet"))).toBe("Gardening notes.");
		expect(items[1]!.querySelector(".vaultheat-suggestion-path")).toBeNull();
	});

	it("passes inline filters and echoes them", async () => {
		const { modal } = await setup();
		await search(modal, 'compost tag:garden path:"Projects"');
		expect(world.transport.bodies("POST /v1/search")[0]).toEqual({ query: "compost", top: 30, tag: "garden", folder: "Projects" });
		expect(text(modal.modalEl.querySelector(".vaultheat-search-hint"))).toBe("Filtered: in Projects/, tagged #garden");
	});

	it("Enter opens the note at the passage's line", async () => {
		const { modal } = await setup();
		await search(modal, "compost");
		key(modal.inputEl, "Enter");
		await flush();
		expect(world.app.openModals).toHaveLength(0);
		const view = world.app.workspace.getMostRecentLeaf()?.view as unknown as { file: { path: string }; editor: { getCursor(): { line: number } } };
		expect(view.file.path).toBe("Projects/Beta.md");
		expect(view.editor.getCursor().line).toBe(2);
	});

	it("Alt+Enter inserts a link into the note being edited, to the section when the match is one", async () => {
		const { modal, editor } = await setup();
		editor.editor.setCursor({ line: 0, ch: 0 });
		await search(modal, "compost");
		key(modal.inputEl, "Enter", { altKey: true });
		expect(editor.editor.getValue().startsWith("[[Beta#Soil]]# Gamma")).toBe(true);
		expect(world.app.workspace.getActiveFile()?.path).toBe("Gamma.md");
	});

	it("Ctrl+Enter opens in a new tab", async () => {
		const { modal } = await setup();
		const leavesBefore = world.app.workspace.getLeavesOfType("markdown").length;
		await search(modal, "compost");
		key(modal.inputEl, "ArrowDown");
		key(modal.inputEl, "Enter", { ctrlKey: true });
		await flush();
		expect(world.app.workspace.getLeavesOfType("markdown").length).toBe(leavesBefore + 1);
		expect(world.app.workspace.getActiveFile()?.path).toBe("Alpha.md");
	});

	it("groups passages by note and shows honest relevance with its label", async () => {
		world = makeWorld();
		world.transport.on("POST /v1/search", (_req, body) =>
			json(200, searchDoc((body as { query: string }).query, [
				searchHit("Projects/Beta.md", { title: "Beta", chunk_id: 1, heading_path: ["Beta", "Soil"], text: "Soil.", score: 1.0, relevance: 0.31, relevance_label: "weak" }),
				searchHit("Alpha.md", { title: "Alpha", chunk_id: 2, text: "Alpha.", score: 0.7, relevance: 0.22, relevance_label: "weak" }),
				searchHit("Projects/Beta.md", { title: "Beta", chunk_id: 3, heading_path: ["Beta", "Worms"], text: "Worms.", score: 0.6, relevance: 0.2, relevance_label: "weak" }),
				searchHit("Projects/Beta.md", { title: "Beta", chunk_id: 4, heading_path: ["Beta", "Water"], text: "Water.", score: 0.5, relevance: 0.19, relevance_label: "weak" }),
			])),
		);
		await goOnline(world);
		await openNote(world, "Gamma.md");
		const modal = new SearchModal(world.services.viewContext());
		modal.open();
		await search(modal, "compost");
		const items = [...modal.resultContainerEl.querySelectorAll(".suggestion-item")];
		expect(items.map((i) => i.getAttribute("data-path"))).toEqual(["Projects/Beta.md", "Alpha.md"]);
		expect(text(items[0]!.querySelector(".vaultheat-suggestion-more"))).toBe("+2 more passages");
		expect(items[0]!.querySelector(".vaultheat-suggestion-more")?.getAttribute("title")).toBe("Worms\nWater");
		// The relative score says 1.00; the absolute relevance says this is a weak match.
		expect(text(items[0]!.querySelector(".vaultheat-score-value"))).toBe("0.31");
		expect(text(items[0]!.querySelector(".vaultheat-relevance"))).toBe("Weak");
	});

	it("hides weak matches with the threshold and says so", async () => {
		world = makeWorld({ settings: { threshold: "good" } });
		world.transport.on("POST /v1/search", (_req, body) =>
			json(200, searchDoc((body as { query: string }).query, [
				searchHit("Alpha.md", { title: "Alpha", score: 1.0, relevance: 0.12, relevance_label: "weak" }),
			])),
		);
		await goOnline(world);
		await openNote(world, "Gamma.md");
		const modal = new SearchModal(world.services.viewContext());
		modal.open();
		await search(modal, "xyzzy qwertyuiop");
		expect(modal.resultContainerEl.querySelectorAll(".suggestion-item")).toHaveLength(0);
		expect(text(modal.resultContainerEl.querySelector(".suggestion-empty"))).toContain("1 weak match hidden");
	});

	it("says in one line when the multilingual vectors are still being built, until the next query", async () => {
		world = makeWorld();
		world.transport.on("POST /v1/search", (_req, body) => {
			const q = (body as { query: string }).query;
			const doc = searchDoc(q, [searchHit("Alpha.md", { title: "Alpha", text: "Gartenarbeit." })]);
			return json(200, q === "gartenarbeit" ? { ...doc, partial_space: true } : doc);
		});
		await goOnline(world);
		await openNote(world, "Gamma.md");
		const modal = new SearchModal(world.services.viewContext());
		modal.open();
		const notice = modal.modalEl.querySelector(".vaultheat-search-partial")!;
		expect(notice.classList.contains("is-visible")).toBe(false);
		await search(modal, "gartenarbeit");
		expect(notice.classList.contains("is-visible")).toBe(true);
		expect(text(notice)).toBe("Multilingual vectors are still being built; results in other languages may be missing.");
		expect(modal.modalEl.querySelectorAll(".vaultheat-search-partial")).toHaveLength(1);
		modal.inputEl.value = "compost";
		modal.inputEl.dispatchEvent(new Event("input"));
		expect(notice.classList.contains("is-visible")).toBe(false);
		await world.clock.advance(250);
		await flush();
		expect(notice.classList.contains("is-visible")).toBe(false);
		expect(modal.resultContainerEl.querySelectorAll(".suggestion-item")).toHaveLength(1);
	});

	it("marks a passage matched in the multilingual space, with why in its tooltip; English ones and one-space answers get none", async () => {
		world = makeWorld();
		world.transport.on("POST /v1/search", (_req, body) => {
			const q = (body as { query: string }).query;
			return json(200, searchDoc(q, [
				searchHit("Kaffee.md", { title: "Kaffee", chunk_id: 1, space: "multilingual" }),
				searchHit("Coffee.md", { title: "Coffee", chunk_id: 2, space: "english" }),
				searchHit("Tea.md", { title: "Tea", chunk_id: 3 }),
			]));
		});
		await goOnline(world);
		await openNote(world, "Gamma.md");
		const modal = new SearchModal(world.services.viewContext());
		modal.open();
		await search(modal, "espresso");
		const rows = [...modal.resultContainerEl.querySelectorAll(".suggestion-item")];
		expect(rows).toHaveLength(3);
		const marks = rows.map((row) => row.querySelector(".vaultheat-space-mark"));
		expect(text(marks[0]!)).toBe("Multilingual");
		expect(marks[0]!.getAttribute("title")).toBe("Matched in the multilingual space: the query or this passage is not in English");
		expect(marks[1]).toBeNull();
		expect(marks[2]).toBeNull();
	});

	it("Ctrl+Shift+Enter explains the passage, and closing the explanation returns to the search", async () => {
		const { modal } = await setup();
		world.transport.on("POST /v1/explain", () => json(200, explainDoc()));
		await search(modal, "compost");
		key(modal.inputEl, "Enter", { ctrlKey: true, shiftKey: true });
		await flush();
		expect(world.transport.bodies("POST /v1/explain")).toEqual([{ query: "compost", chunk_id: 42 }]);
		expect(text(document.querySelector(".vaultheat-explain-modal .modal-title"))).toBe("Why “Beta” matches");
		expect(text(document.querySelector(".vaultheat-explain-context"))).toBe("For the search “compost”← Back to search");
		world.app.openModals[0]?.close();
		await flush();
		const back = world.app.openModals[0] as SearchModal | undefined;
		expect(back).toBeInstanceOf(SearchModal);
		expect(back?.inputEl.value).toBe("compost");
	});

	it("says what to do when the search fails", async () => {
		const { modal } = await setup();
		world.transport.on("POST /v1/search", () => apiError(409, "index_mismatch", "model changed"));
		await search(modal, "compost");
		expect(text(modal.resultContainerEl.querySelector(".vaultheat-state-title"))).toBe("The index needs a rebuild");
		(modal.resultContainerEl.querySelector(".vaultheat-state-actions button") as HTMLElement).click();
		expect(world.fixes).toEqual(["rebuild-index"]);
		// the search closed; what is left asks before rebuilding
		expect(world.app.openModals.map((m) => m.modalEl.classList.contains("vaultheat-confirm"))).toEqual([true]);
	});

	it("says when nothing matched", async () => {
		const { modal } = await setup();
		world.transport.on("POST /v1/search", () => json(200, searchDoc("zzz", [])));
		await search(modal, "zzz");
		expect(text(modal.resultContainerEl)).toBe("No matching passages.");
	});

	it("shows the connection problem before the user types", async () => {
		world = makeWorld();
		world.transport.unreachable = true;
		await goOnline(world);
		const modal = new SearchModal(world.services.viewContext());
		modal.open();
		await flush();
		expect(text(modal.resultContainerEl.querySelector(".vaultheat-state-title"))).toBe("The sidecar is not running");
	});
});
