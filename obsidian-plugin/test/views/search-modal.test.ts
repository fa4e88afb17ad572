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
			searchHit("Projects/Beta.md", { title: "Beta", heading_path: ["Beta", "Soil"], line_start: 3, text: "Compost keeps the soil alive.", score: 0.88 }),
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
	it("shows a hint before typing and the instructions", async () => {
		const { modal } = await setup();
		await flush();
		expect(text(modal.resultContainerEl)).toContain("Type at least two letters");
		expect(modal.inputEl.placeholder).toBe("Search by meaning…");
		const instructions = [...modal.modalEl.querySelectorAll(".prompt-instruction")].map((e) => [...e.children].map((c) => text(c)).join(" "));
		expect(instructions).toEqual(["↑↓ to navigate", "↵ to open", "Ctrl ↵ to insert a link", "Alt ↵ to explain", "esc to dismiss"]);
	});

	it("searches after a pause and renders title, score, place and highlighted snippet", async () => {
		const { modal } = await setup();
		modal.inputEl.value = "compost soil";
		modal.inputEl.dispatchEvent(new Event("input"));
		await world.clock.advance(249);
		expect(world.transport.bodies("POST /v1/search")).toHaveLength(0);
		await world.clock.advance(1);
		await flush();
		expect(world.transport.bodies("POST /v1/search")).toEqual([{ query: "compost soil", top: 10 }]);
		const items = modal.resultContainerEl.querySelectorAll(".suggestion-item");
		expect(items).toHaveLength(2);
		expect(text(items[0]!.querySelector(".vaultheat-suggestion-title"))).toBe("Beta");
		expect(text(items[0]!.querySelector(".vaultheat-suggestion-score"))).toBe("0.88");
		expect(text(items[0]!.querySelector(".vaultheat-suggestion-path"))).toBe("Projects › Soil");
		expect([...items[0]!.querySelectorAll("mark")].map((m) => m.textContent)).toEqual(["Compost", "soil"]);
		expect(text(items[1]!.querySelector(".vaultheat-suggestion-snippet"))).toBe("Gardening notes.");
		expect(items[1]!.querySelector(".vaultheat-suggestion-path")).toBeNull();
	});

	it("passes inline filters and echoes them", async () => {
		const { modal } = await setup();
		await search(modal, 'compost tag:garden path:"Projects"');
		expect(world.transport.bodies("POST /v1/search")[0]).toEqual({ query: "compost", top: 10, tag: "garden", folder: "Projects" });
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

	it("Ctrl+Enter inserts a link into the note being edited instead", async () => {
		const { modal, editor } = await setup();
		editor.editor.setCursor({ line: 0, ch: 0 });
		await search(modal, "compost");
		key(modal.inputEl, "ArrowDown");
		key(modal.inputEl, "Enter", { ctrlKey: true });
		expect(editor.editor.getValue().startsWith("[[Alpha]]# Gamma")).toBe(true);
		expect(world.app.workspace.getActiveFile()?.path).toBe("Gamma.md");
	});

	it("Alt+Enter explains the passage", async () => {
		const { modal } = await setup();
		world.transport.on("POST /v1/explain", () => json(200, explainDoc()));
		await search(modal, "compost");
		key(modal.inputEl, "Enter", { altKey: true });
		await flush();
		expect(world.transport.bodies("POST /v1/explain")).toEqual([{ query: "compost", chunk_id: 42 }]);
		expect(text(document.querySelector(".vaultheat-explain-modal .modal-title"))).toBe("Why “Beta” matches");
		expect(text(document.querySelector(".vaultheat-explain-context"))).toBe("For the search “compost”");
	});

	it("says what to do when the search fails", async () => {
		const { modal } = await setup();
		world.transport.on("POST /v1/search", () => apiError(409, "index_mismatch", "model changed"));
		await search(modal, "compost");
		expect(text(modal.resultContainerEl.querySelector(".vaultheat-state-title"))).toBe("The index needs a rebuild");
		(modal.resultContainerEl.querySelector(".vaultheat-state-actions button") as HTMLElement).click();
		expect(world.fixes).toEqual(["rebuild-index"]);
		expect(world.app.openModals).toHaveLength(0);
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
