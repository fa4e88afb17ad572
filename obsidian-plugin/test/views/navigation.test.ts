import { afterEach, describe, expect, it, vi } from "vitest";
import { FileView, notices } from "obsidian";
import { openResult, resultLinktext } from "../../src/views/navigation";
import { pagesText, SearchModal } from "../../src/views/search-modal";
import { flush, json, searchDoc, searchHit } from "../helpers";
import { goOnline, key, makeWorld, openNote, type World } from "../world";

let world: World;
afterEach(() => {
	for (const m of [...(world?.app.openModals ?? [])]) m.close();
	world?.services.dispose();
});

describe("opening a result where it is", () => {
	it.each([
		["a PDF's page, as Obsidian's own links", "Docs/Manual.pdf", { line_start: 0, page: 2 }, "Docs/Manual.pdf#page=2"],
		["a canvas, whole (no public API focuses a card)", "Boards/Kitchen.canvas", { line_start: 0, card_id: "c1" }, "Boards/Kitchen.canvas"],
		["a note by its path", "Alpha.md", { line_start: 3 }, "Alpha.md"],
		["a page number that is no page", "Docs/Manual.pdf", { line_start: 0, page: 0 }, "Docs/Manual.pdf"],
		["the page that holds the match, in a span of pages", "Docs/Short.pdf", { line_start: 0, page: 1, open_page: 2 }, "Docs/Short.pdf#page=2"],
		["the first page when the match page is no page", "Docs/Short.pdf", { line_start: 0, page: 1, open_page: 0 }, "Docs/Short.pdf#page=1"],
		["a match page without a first page (as a server could send)", "Docs/Short.pdf", { line_start: 0, open_page: 3 }, "Docs/Short.pdf#page=3"],
	])("link text for %s", (_name, path, place, want) => {
		expect(resultLinktext(path, place)).toBe(want);
	});

	it("opens a PDF result at its page and a canvas result by its path", async () => {
		world = makeWorld();
		world.app.vault.seed({ "Docs/Manual.pdf": "%PDF-1.7", "Boards/Kitchen.canvas": "{}" });
		const opened = vi.spyOn(world.app.workspace, "openLinkText");
		await openResult(world.app as never, "Docs/Manual.pdf", { line_start: 0, page: 2 }, "tab");
		await openResult(world.app as never, "Boards/Kitchen.canvas", { line_start: 0, card_id: "c1" });
		expect(opened.mock.calls.map((c) => [c[0], c[2]])).toEqual([["Docs/Manual.pdf#page=2", "tab"], ["Boards/Kitchen.canvas", false]]);
	});

	it("the PDF view is opened with the page as the link's subpath, as Obsidian hands it to its PDF view", async () => {
		world = makeWorld();
		world.app.vault.seed({ "Docs/Manual.pdf": "%PDF-1.7" });
		await openResult(world.app as never, "Docs/Manual.pdf", { line_start: 0, page: 2 });
		const view = world.app.workspace.getMostRecentLeaf()?.view;
		expect(view).toBeInstanceOf(FileView);
		expect((view as FileView).file.path).toBe("Docs/Manual.pdf");
		expect((view as FileView).eState).toEqual({ subpath: "#page=2" });
		expect(world.app.workspace.getActiveFile()?.path).toBe("Docs/Manual.pdf");
	});

	it("a PDF that left the vault is not opened (a notice says so)", async () => {
		world = makeWorld();
		await openResult(world.app as never, "Docs/Gone.pdf", { line_start: 0, page: 2 });
		expect(world.app.workspace.linksOpened).toEqual([]);
		expect(notices.at(-1)).toContain("Docs/Gone.pdf is not in the vault any more");
	});

	it("opens a note result at its line, not through a link", async () => {
		world = makeWorld();
		const opened = vi.spyOn(world.app.workspace, "openLinkText");
		await openResult(world.app as never, "Projects/Beta.md", { line_start: 3 });
		const view = world.app.workspace.getMostRecentLeaf()?.view as unknown as { file: { path: string }; editor: { getCursor(): { line: number } } };
		expect(view.file.path).toBe("Projects/Beta.md");
		expect(view.editor.getCursor().line).toBe(2);
		expect(opened).not.toHaveBeenCalled();
	});

	it("Enter on a PDF search result opens the PDF at the result's page", async () => {
		world = makeWorld();
		world.app.vault.seed({ "Docs/Manual.pdf": "%PDF-1.7" });
		world.transport.on("POST /v1/search", () =>
			json(200, searchDoc("zinnia", [searchHit("Docs/Manual.pdf", { title: "Manual", line_start: 0, line_end: 0, page: 2, page_end: 2, text: "Harden zinnia seedlings." })])),
		);
		await goOnline(world);
		await openNote(world, "Alpha.md");
		const opened = vi.spyOn(world.app.workspace, "openLinkText");
		const modal = new SearchModal(world.services.viewContext());
		modal.open();
		modal.inputEl.value = "zinnia";
		modal.inputEl.dispatchEvent(new Event("input"));
		await world.clock.advance(250);
		await flush();
		key(modal.inputEl, "Enter");
		await flush();
		expect(opened.mock.calls[0]?.[0]).toBe("Docs/Manual.pdf#page=2");
	});

	it.each([
		["at the page that holds the match", { open_page: 2 }, "Docs/Short.pdf#page=2"],
		["at its first page from an older server (no open_page)", {}, "Docs/Short.pdf#page=1"],
	])("Enter on a search result spanning pp. 1-2 opens the PDF %s", async (_name, extra, want) => {
		world = makeWorld();
		world.app.vault.seed({ "Docs/Short.pdf": "%PDF-1.7" });
		const hit = searchHit("Docs/Short.pdf", { title: "Short", line_start: 0, line_end: 0, page: 1, page_end: 2, ...extra, text: "Pruning roses. Dahlia tubers." });
		world.transport.on("POST /v1/search", () => json(200, searchDoc("dahlia", [hit])));
		await goOnline(world);
		await openNote(world, "Alpha.md");
		const opened = vi.spyOn(world.app.workspace, "openLinkText");
		const modal = new SearchModal(world.services.viewContext());
		modal.open();
		modal.inputEl.value = "dahlia";
		modal.inputEl.dispatchEvent(new Event("input"));
		await world.clock.advance(250);
		await flush();
		key(modal.inputEl, "Enter");
		await flush();
		expect(opened.mock.calls[0]?.[0]).toBe(want);
	});

	it.each([
		["one page", { page: 2, page_end: 2 }, "p. 2"],
		["a range", { page: 2, page_end: 3 }, "pp. 2-3"],
		["a range opened at its first page", { page: 2, page_end: 3, open_page: 2 }, "pp. 2-3"],
		["a range opened at the match's page", { page: 2, page_end: 3, open_page: 3 }, "pp. 2-3 (match on p. 3)"],
		["a note", {}, ""],
	])("the search row says where in a PDF: %s", (_name, hit, want) => {
		expect(pagesText(hit)).toBe(want);
	});
});
