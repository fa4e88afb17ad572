/**
 * What a review against the Obsidian 1.13 API found (issue 24), one test per defect, written
 * before the fix: the stub models the app's behaviour that hid each one (sliders that show their
 * value inline, a keymap that asks the active view's Scope before the app's hotkeys, quitting
 * without unloading plugins).
 */
import { Menu, Plugin, Scope, setApiVersion } from "obsidian";
import { afterEach, describe, expect, it, vi } from "vitest";
import { revealRelated } from "../src/views/related-view";
import { SearchModal } from "../src/views/search-modal";
import { VaultheatSettingTab } from "../src/views/settings-tab";
import { explainDoc, flush, json, relatedHit, searchDoc, searchHit } from "./helpers";
import { goOnline, key, makeWorld, openNote, text, typeInto, withSidebar, type World } from "./world";

let world: World;
afterEach(() => {
	for (const m of [...(world?.app.openModals ?? [])]) m.close();
	world?.services.dispose();
});

const hits = () => [
	relatedHit("Projects/Beta.md", { title: "Beta", best_chunk: { chunk_id: 3, heading_path: ["Beta", "Soil"], line_start: 3, line_end: 3, byte_start: 0, byte_end: 10, text: "Beta soil." } }),
	relatedHit("Gamma.md", { title: "Gamma" }),
];

async function sidebar(options: Parameters<typeof makeWorld>[0] = {}) {
	world = makeWorld(options);
	return withSidebar(world, hits());
}

function settingsTab(settings: Parameters<typeof makeWorld>[0] = {}) {
	world = makeWorld(settings);
	const plugin = new Plugin(world.app, { id: "vaultheat", name: "Vaultheat", version: "0.1.0", minAppVersion: "1.7.2", description: "", author: "" });
	const ctx = world.services.viewContext();
	const tab = new VaultheatSettingTab(world.app, plugin, { settings: ctx.settings, saveSettings: ctx.saveSettings, fix: ctx.fix, canSpawn: true, status: world.services.status });
	tab.display();
	const row = (name: string) => [...tab.containerEl.querySelectorAll(".setting-item")].find((r) => text(r.querySelector(".setting-item-name")) === name)!;
	return { tab, row };
}

async function searchModal(results = [searchHit("Projects/Beta.md", { title: "Beta", heading_path: ["Beta", "Soil"], line_start: 3 })]) {
	world = makeWorld();
	world.transport.on("POST /v1/search", (_req, body) => json(200, searchDoc((body as { query: string }).query, results)));
	await goOnline(world);
	const editor = await openNote(world, "Gamma.md");
	const modal = new SearchModal(world.services.viewContext());
	modal.open();
	return { modal, editor };
}

async function typeQuery(modal: SearchModal, query: string) {
	modal.inputEl.value = query;
	modal.inputEl.dispatchEvent(new Event("input"));
	await flush();
}

describe("real-app defects", () => {
	it("a slider shows its value once: Obsidian 1.13 draws it inline, the plugin only formats it", () => {
		const { row } = settingsTab();
		for (const [name, shown] of [["Result count", "10"], ["Typing pause", "500 ms"]] as const) {
			const r = row(name);
			const texts = [...r.querySelectorAll(".setting-item-control *")].filter((e) => e.children.length === 0).map((e) => text(e)).filter(Boolean);
			expect(texts).toEqual([shown]);
		}
	});

	it("on an app older than 1.13 (no inline value) the plugin's own label shows it, once", () => {
		setApiVersion("1.12.4");
		try {
			const { row } = settingsTab();
			const r = row("Typing pause");
			const texts = [...r.querySelectorAll(".setting-item-control *")].filter((e) => e.children.length === 0).map((e) => text(e)).filter(Boolean);
			expect(texts).toEqual(["500 ms"]);
			expect(text(r.querySelector(".vaultheat-slider-value"))).toBe("500 ms");
		} finally {
			setApiVersion("1.13.1");
		}
	});

	it("typing reads the note once per pause, not on every keystroke", async () => {
		const { editor } = await sidebar();
		const reads = vi.spyOn(editor.editor, "getValue");
		const cursor = vi.spyOn(editor.editor, "posToOffset");
		for (const ch of "hello") typeInto(editor, ch);
		expect(reads).not.toHaveBeenCalled();
		expect(cursor).not.toHaveBeenCalled();
		await world.clock.advance(500);
		expect(cursor).toHaveBeenCalledTimes(1); // one request built, for the last keystroke
		expect((world.transport.bodies("POST /v1/related").at(-1) as { text: string }).text.endsWith("hello")).toBe(true);
	});

	it("Alt/Mod+Enter while an IME composes (Chinese, Japanese) does not act", async () => {
		const { modal, editor } = await searchModal();
		await typeQuery(modal, "土壌");
		const before = editor.editor.getValue();
		key(modal.inputEl, "Enter", { altKey: true, isComposing: true });
		key(modal.inputEl, "Enter", { ctrlKey: true, isComposing: true });
		expect(editor.editor.getValue()).toBe(before);
		expect(world.app.openModals).toHaveLength(1);
		const { root, editor: note } = await sidebar();
		const row = root.querySelector<HTMLElement>(".vaultheat-row")!;
		row.focus();
		const text0 = note.editor.getValue();
		key(row, "Enter", { altKey: true, isComposing: true });
		expect(note.editor.getValue()).toBe(text0);
	});

	it("the sidebar's keys go through its Scope, so a user's global hotkey does not take them", async () => {
		const { root, editor } = await sidebar();
		let hotkey = 0;
		world.app.scope.register(["Alt"], "Enter", () => {
			hotkey++;
			return false;
		});
		editor.editor.setCursor({ line: 0, ch: 0 });
		const row = root.querySelector<HTMLElement>(".vaultheat-row")!;
		row.focus();
		expect(world.app.keymap.activeScope).toBeInstanceOf(Scope);
		expect(world.app.keymap.activeScope.parent).toBe(world.app.scope);
		key(row, "Enter", { altKey: true });
		expect(hotkey).toBe(0);
		expect(editor.editor.getValue().startsWith("[[Beta#Soil]]")).toBe(true);
	});

	it("a command focuses the sidebar, and Esc goes back to the editor", async () => {
		const { root, editor } = await sidebar();
		await revealRelated(world.app, { focus: true });
		await flush();
		expect(document.activeElement).toBe(root.querySelector(".vaultheat-row"));
		key(document.activeElement!, "Escape");
		expect(document.activeElement).toBe(editor.editor.textarea);
		expect(world.app.workspace.activeLeaf).toBe(editor.leaf);
	});

	it("“+2 more passages” opens the other passages, each opening at its own line", async () => {
		const { modal } = await searchModal([
			searchHit("Projects/Beta.md", { title: "Beta", chunk_id: 1, heading_path: ["Beta", "Soil"], line_start: 3 }),
			searchHit("Projects/Beta.md", { title: "Beta", chunk_id: 2, heading_path: ["Beta", "Worms"], line_start: 1 }),
			searchHit("Projects/Beta.md", { title: "Beta", chunk_id: 3, heading_path: ["Beta", "Water"], line_start: 2 }),
		]);
		await typeQuery(modal, "compost");
		const more = modal.resultContainerEl.querySelector<HTMLElement>(".vaultheat-suggestion-more")!;
		expect(text(more)).toBe("+2 more passages");
		more.click();
		await flush();
		expect(world.app.openModals).toHaveLength(1);
		const items = [...modal.resultContainerEl.querySelectorAll(".suggestion-item")];
		expect(items.map((i) => i.getAttribute("data-line"))).toEqual(["3", "1", "2"]);
		expect(text(items[2]!.querySelector(".vaultheat-suggestion-path"))).toBe("Water");
		key(modal.inputEl, "ArrowDown");
		key(modal.inputEl, "ArrowDown");
		key(modal.inputEl, "Enter");
		await flush();
		expect(world.app.workspace.getActiveFile()?.path).toBe("Projects/Beta.md");
		const view = world.app.workspace.getMostRecentLeaf()?.view as unknown as { editor: { getCursor(): { line: number } } };
		expect(view.editor.getCursor().line).toBe(1); // the Water passage's line, not the note row's
	});

	it("a hidden suggestion can be shown again from the settings", async () => {
		const { tab, row } = settingsTab({ settings: { hiddenSuggestions: { "Alpha.md": ["Projects/Beta.md", "Gamma.md"] } } });
		expect(text(row("Hidden suggestions").querySelector(".setting-item-description"))).toContain("2 hidden");
		const items = [...tab.containerEl.querySelectorAll(".vaultheat-hidden-item")].map((e) => text(e.querySelector(".vaultheat-hidden-text")));
		expect(items).toEqual(["Projects/Beta.md, for Alpha.md", "Gamma.md, for Alpha.md"]);
		tab.containerEl.querySelector<HTMLElement>(".vaultheat-hidden-item button")!.click();
		await flush();
		expect(world.settings().hiddenSuggestions).toEqual({ "Alpha.md": ["Gamma.md"] });
		[...row("Hidden suggestions").querySelectorAll("button")].find((b) => text(b) === "Show all again")!.click();
		await flush();
		expect(world.settings().hiddenSuggestions).toEqual({});
	});

	it("“Exclude folder” asks first: it changes the whole index", async () => {
		const { root } = await sidebar();
		root.querySelector<HTMLElement>(".vaultheat-row")!.dispatchEvent(new MouseEvent("contextmenu", { bubbles: true }));
		(Menu as unknown as { lastShown: { click(t: string): void } }).lastShown.click("Exclude folder “Projects”");
		await flush();
		expect(world.settings().excluded).toEqual([]);
		const dialog = document.querySelector(".vaultheat-confirm")!;
		expect(text(dialog.querySelector(".modal-title"))).toBe("Exclude “Projects” from the index?");
		expect(text(dialog)).toContain("whole vault");
		[...dialog.querySelectorAll("button")].find((b) => text(b) === "Exclude folder")!.click();
		await flush();
		expect(world.settings().excluded).toEqual(["Projects/"]);
	});

	it("typing in the exclusions box applies them (and restarts the sidecar) once, when it loses focus", async () => {
		const { row } = settingsTab({ withSidecar: true });
		const area = row("Excluded folders and patterns").querySelector("textarea")!;
		for (const v of ["T", "Te", "Templates/"]) {
			area.value = v;
			area.dispatchEvent(new Event("input"));
		}
		await flush();
		expect(world.settings().excluded).toEqual([]);
		area.dispatchEvent(new Event("change"));
		await flush();
		expect(world.settings().excluded).toEqual(["Templates/"]);
	});

	it("search asks at once: the sidecar answers in milliseconds, so no pause is added", async () => {
		const { modal } = await searchModal();
		await typeQuery(modal, "compost");
		expect(world.transport.bodies("POST /v1/search")).toEqual([{ query: "compost", top: 30 }]);
	});

	it("“Rebuild index” asks first, and rebuilds only when confirmed", async () => {
		world = makeWorld();
		world.transport.on("POST /v1/index", () => json(200, { schema: "vaultheat.ack.v1", queued: 1, full: true }));
		await goOnline(world);
		world.services.fix("rebuild-index");
		await flush();
		expect(world.transport.bodies("POST /v1/index")).toEqual([]);
		const dialog = document.querySelector(".vaultheat-confirm")!;
		expect(text(dialog.querySelector(".modal-title"))).toBe("Rebuild the index?");
		expect(text(dialog)).toContain("12 notes");
		[...dialog.querySelectorAll("button")].find((b) => text(b) === "Cancel")!.click();
		await flush();
		expect(world.transport.bodies("POST /v1/index")).toEqual([]);
		world.services.fix("rebuild-index");
		await flush();
		[...document.querySelectorAll(".vaultheat-confirm button")].find((b) => text(b) === "Rebuild")!.dispatchEvent(new MouseEvent("click"));
		await flush();
		expect(world.transport.bodies("POST /v1/index")).toEqual([{ full: true }]);
	});

	it("keys follow Quick switcher: Shift+Enter is left alone, Mod+Alt+Enter opens to the right, Mod+Shift+Enter explains", async () => {
		const { modal } = await searchModal();
		world.transport.on("POST /v1/explain", () => json(200, explainDoc()));
		await typeQuery(modal, "compost");
		key(modal.inputEl, "Enter", { shiftKey: true });
		await flush();
		expect(world.transport.bodies("POST /v1/explain")).toEqual([]);
		expect(world.app.openModals).toHaveLength(1);
		const instructions = [...modal.modalEl.querySelectorAll(".prompt-instruction")].map((e) => [...e.children].map((c) => text(c)).join(" "));
		expect(instructions).toEqual(["↑↓ to navigate", "↵ to open", "Ctrl ↵ to open in a new tab", "Ctrl Alt ↵ to open to the right", "Alt ↵ to insert a link", "Ctrl Shift ↵ to explain", "esc to dismiss"]);
		key(modal.inputEl, "Enter", { ctrlKey: true, shiftKey: true });
		await flush();
		expect(world.transport.bodies("POST /v1/explain")).toEqual([{ query: "compost", chunk_id: 42 }]);
	});
});
