import { MarkdownView, notices } from "obsidian";
import { afterEach, describe, expect, it } from "vitest";
import { VIEW_TYPE_RELATED } from "../../src/views/context";
import { INSTALL_COMMAND } from "../../src/state/diagnosis";
import { renderRelatedRow, type RowHandlers } from "../../src/views/related-row";
import { apiError, explainDoc, flush, json, relatedDoc, relatedHit, statusDoc } from "../helpers";
import { goOnline, key, makeWorld, openNote, openSidebar, text, typeInto, withSidebar, type World } from "../world";

let world: World;
afterEach(() => world?.services.dispose());

const hits = () => [
	relatedHit("Projects/Beta.md", { title: "Beta", score: 0.82, link_status: "unlinked", best_chunk: { chunk_id: 3, heading_path: ["Beta", "Soil"], line_start: 3, line_end: 3, byte_start: 0, byte_end: 10, text: "Beta is about **compost** and [[Alpha|soil]]." } }),
	relatedHit("Gamma.md", { title: "Gamma", score: 0.41, link_status: "backlinked", best_chunk: { chunk_id: 5, heading_path: [], line_start: 1, line_end: 3, byte_start: 0, byte_end: 10, text: "Something else." } }),
];

async function ready(options: Parameters<typeof makeWorld>[0] = {}) {
	world = makeWorld(options);
	return withSidebar(world, hits());
}

describe("related sidebar", () => {
	it("shows an empty state when no note is open", async () => {
		world = makeWorld();
		await goOnline(world);
		const { view } = await openSidebar(world);
		expect(text(view.contentEl.querySelector(".vaultheat-header-title"))).toBe("No note open");
		expect(text(view.contentEl.querySelector(".vaultheat-state-title"))).toBe("No note open");
		expect(view.getViewType()).toBe(VIEW_TYPE_RELATED);
		expect(view.getDisplayText()).toBe("Related notes");
	});

	it("renders one row per result with title, badge, score, folder, heading and snippet", async () => {
		const { root } = await ready();
		expect(text(root.querySelector(".vaultheat-header-title"))).toBe("Alpha");
		const rows = root.querySelectorAll(".vaultheat-row");
		expect(rows).toHaveLength(2);
		const beta = rows[0]!;
		expect(text(beta.querySelector(".vaultheat-row-title"))).toBe("Beta");
		expect(text(beta.querySelector(".vaultheat-badge"))).toBe("Unlinked");
		expect(beta.querySelector(".vaultheat-badge")?.classList.contains("is-unlinked")).toBe(true);
		expect(text(beta.querySelector(".vaultheat-row-folder"))).toBe("Projects");
		// "Beta" repeats the title, so only the inner heading is shown.
		expect(text(beta.querySelector(".vaultheat-row-heading"))).toBe("Soil");
		expect(text(beta.querySelector(".vaultheat-row-snippet"))).toBe("Beta is about compost and soil.");
		expect(beta.querySelector("[role=meter]")?.getAttribute("aria-valuenow")).toBe("0.82");
		expect(beta.getAttribute("aria-label")).toBe("Beta in Projects, unlinked, score 0.82");
		// An older server without relevance: the relative score, said to be relative.
		expect(beta.querySelector(".vaultheat-score")?.classList.contains("is-relative")).toBe(true);
		expect(text(rows[1]!.querySelector(".vaultheat-badge"))).toBe("Links here");
		expect(text(rows[1]!.querySelector(".vaultheat-row-folder"))).toBe("Vault root");
		expect(rows[1]!.querySelector(".vaultheat-row-heading")).toBeNull();
		expect(text(root.querySelector(".vaultheat-footer"))).toBe("2 notes");
		// The timing is a tooltip, not footer text.
		expect(root.querySelector(".vaultheat-footer")?.getAttribute("title")).toBe("Answered in 8 ms");
		expect(root.querySelector("[role=list]")?.getAttribute("aria-label")).toContain("Arrow keys");
	});

	it("marks a note matched in the multilingual space, with why in its tooltip; English ones and one-space answers get none", async () => {
		world = makeWorld();
		const { root } = await withSidebar(world, [
			relatedHit("Kaffee.md", { title: "Kaffee", space: "multilingual" }),
			relatedHit("Coffee.md", { title: "Coffee", space: "english" }),
			relatedHit("Tea.md", { title: "Tea" }),
		]);
		const rows = [...root.querySelectorAll(".vaultheat-row")];
		expect(rows).toHaveLength(3);
		const mark = rows[0]!.querySelector(".vaultheat-row-meta .vaultheat-space-mark");
		expect(text(mark)).toBe("Multilingual");
		expect(mark?.getAttribute("title")).toBe("Matched in the multilingual space: this note or the open note is not in English");
		expect(rows[0]!.getAttribute("aria-label")).toContain("matched in the multilingual space");
		expect(rows[1]!.querySelector(".vaultheat-space-mark")).toBeNull();
		expect(rows[2]!.querySelector(".vaultheat-space-mark")).toBeNull();
		expect(rows[1]!.getAttribute("aria-label")).not.toContain("multilingual");
	});

	it("says in one line when the multilingual vectors are still being built, as search does", async () => {
		world = makeWorld();
		let partial = true;
		world.transport.on("POST /v1/related", () => json(200, { ...relatedDoc("Alpha.md", hits()), ...(partial ? { partial_space: true } : {}) }));
		await goOnline(world);
		const { view } = await openSidebar(world);
		await openNote(world, "Alpha.md");
		await flush();
		const notices = view.contentEl.querySelectorAll(".vaultheat-related-partial");
		expect(notices).toHaveLength(1);
		expect(notices[0]!.classList.contains("is-visible")).toBe(true);
		expect(text(notices[0]!)).toBe("Multilingual vectors are still being built; results in other languages may be missing.");
		partial = false;
		world.services.related.refresh();
		await world.clock.advance(1000);
		await flush();
		expect(notices[0]!.classList.contains("is-visible")).toBe(false);
	});

	it("sends the note text, re-queries while typing after the pause, and keeps rows in place meanwhile", async () => {
		const { root, editor } = await ready();
		const before = world.transport.bodies("POST /v1/related");
		expect(before[0]).toMatchObject({ path: "Alpha.md", text: world.app.vault.contentOf("Alpha.md"), cursor: 0, top: 10 });
		const firstRow = root.querySelector(".vaultheat-row");
		typeInto(editor, " More about café");
		expect(root.classList.contains("is-updating")).toBe(true);
		await world.clock.advance(499);
		expect(world.transport.bodies("POST /v1/related")).toHaveLength(1);
		expect(root.querySelector(".vaultheat-row")).toBe(firstRow);
		await world.clock.advance(1);
		const bodies = world.transport.bodies("POST /v1/related") as { text: string; cursor: number }[];
		expect(bodies).toHaveLength(2);
		expect(bodies[1]!.text.endsWith("More about café")).toBe(true);
		expect(bodies[1]!.cursor).toBe(new TextEncoder().encode(bodies[1]!.text).length);
		await flush();
		expect(root.classList.contains("is-updating")).toBe(false);
	});

	it("follows the active note and ignores focus moving to the sidebar", async () => {
		const { leaf, root } = await ready();
		world.app.workspace.setActiveLeaf(leaf);
		expect(text(root.querySelector(".vaultheat-header-title"))).toBe("Alpha");
		world.transport.on("POST /v1/related", () => json(200, relatedDoc("Gamma.md", [relatedHit("Alpha.md")])));
		await openNote(world, "Gamma.md");
		expect(text(root.querySelector(".vaultheat-header-title"))).toBe("Gamma");
		expect(text(root.querySelector(".vaultheat-row-title"))).toBe("Alpha");
	});

	it("opens a note at the matching line on click, in a new tab with a modifier", async () => {
		const { root } = await ready();
		(root.querySelectorAll(".vaultheat-row")[0] as HTMLElement).click();
		await flush();
		const view = world.app.workspace.getActiveViewOfType(MarkdownView)!;
		expect(view.file?.path).toBe("Projects/Beta.md");
		expect(view.editor.getCursor().line).toBe(2);
		// The sidebar now follows Beta, so Beta itself left the list.
		expect([...root.querySelectorAll(".vaultheat-row-title")].map((e) => e.textContent)).toEqual(["Gamma"]);
		const leavesBefore = world.app.workspace.getLeavesOfType("markdown").length;
		root.querySelectorAll(".vaultheat-row")[0]!.dispatchEvent(new MouseEvent("click", { bubbles: true, ctrlKey: true }));
		await flush();
		expect(world.app.workspace.getLeavesOfType("markdown").length).toBe(leavesBefore + 1);
		expect(world.app.workspace.getActiveFile()?.path).toBe("Gamma.md");
	});

	it("moves with the arrow keys and acts on Enter, Alt+Enter (link) and Mod+Shift+Enter (explain)", async () => {
		const { root, editor } = await ready();
		world.transport.on("POST /v1/explain", () => json(200, explainDoc()));
		const rows = [...root.querySelectorAll<HTMLElement>(".vaultheat-row")];
		expect(rows.map((r) => r.getAttribute("tabindex"))).toEqual(["0", "-1"]);
		rows[0]!.focus();
		key(rows[0]!, "ArrowDown");
		expect(document.activeElement).toBe(rows[1]);
		expect(rows.map((r) => r.getAttribute("tabindex"))).toEqual(["-1", "0"]);
		key(rows[1]!, "ArrowDown");
		expect(document.activeElement).toBe(rows[1]);
		key(rows[1]!, "Home");
		expect(document.activeElement).toBe(rows[0]);
		editor.editor.setCursor({ line: 0, ch: 0 });
		key(rows[0]!, "Enter", { altKey: true });
		// The match is Beta's "Soil" section: the link points at it.
		expect(editor.editor.getValue().startsWith("[[Beta#Soil]]# Alpha")).toBe(true);
		rows[0]!.focus(); // inserting the link moved focus to the editor
		key(rows[0]!, "Enter", { ctrlKey: true, shiftKey: true });
		await flush();
		expect(document.querySelector(".vaultheat-explain-modal .modal-title")?.textContent).toBe("Why “Beta” is related");
		expect(world.transport.bodies("POST /v1/explain")[0]).toMatchObject({ path: "Alpha.md", target: "Projects/Beta.md" });
		world.app.openModals[0]?.close();
		rows[0]!.focus();
		key(rows[0]!, "End");
		key(rows[1]!, "Enter");
		await flush();
		expect(world.app.workspace.getActiveFile()?.path).toBe("Gamma.md");
	});

	it("inserts a link from the row button and sets a link for drag and drop", async () => {
		const { root, editor } = await ready();
		editor.editor.setCursor({ line: 2, ch: 0 });
		(root.querySelector('[aria-label="Insert link at cursor (Alt+Enter)"]') as HTMLElement).click();
		expect(editor.editor.getLine(2)).toBe("[[Beta#Soil]]Alpha talks about gardening and tomatoes.");
		const data = new Map<string, string>();
		const evt = new Event("dragstart", { bubbles: true });
		Object.defineProperty(evt, "dataTransfer", { value: { setData: (t: string, v: string) => data.set(t, v), effectAllowed: "" } });
		root.querySelectorAll(".vaultheat-row")[1]!.dispatchEvent(evt);
		expect(data.get("text/plain")).toBe("[[Gamma]]");
	});

	it("selects rows with Space or Shift+click and inserts them as a list of section links", async () => {
		const { root, editor } = await ready();
		const rows = [...root.querySelectorAll<HTMLElement>(".vaultheat-row")];
		rows[0]!.focus();
		key(rows[0]!, " ");
		rows[1]!.dispatchEvent(new MouseEvent("click", { bubbles: true, shiftKey: true }));
		expect(text(root.querySelector(".vaultheat-selection-count"))).toBe("2 selected");
		expect([...root.querySelectorAll(".vaultheat-row.is-selected")]).toHaveLength(2);
		expect(world.app.workspace.getActiveFile()?.path).toBe("Alpha.md");
		editor.editor.setCursor({ line: 0, ch: 0 });
		const insert = [...root.querySelectorAll<HTMLElement>(".vaultheat-selection button")].find((b) => text(b) === "Insert as list")!;
		insert.click();
		expect(editor.editor.getValue().startsWith("- [[Beta#Soil]]\n- [[Gamma]]\n# Alpha")).toBe(true);
		expect(root.querySelector(".vaultheat-selection-count")).toBeNull();
	});

	it("has a row menu: open to the right, hide this suggestion for this note, exclude its folder", async () => {
		const { Menu } = await import("obsidian");
		const { root } = await ready();
		const row = root.querySelector<HTMLElement>(".vaultheat-row")!;
		row.dispatchEvent(new MouseEvent("contextmenu", { bubbles: true, clientX: 5, clientY: 5 }));
		const menu = (Menu as unknown as { lastShown: { titles(): string[]; click(t: string): void } }).lastShown;
		expect(menu.titles()).toEqual([
			"Open in new tab",
			"Open to the right",
			"Insert link",
			"Copy link",
			"Why is this related?",
			"Hide this suggestion for this note",
			"Exclude folder “Projects”",
		]);
		menu.click("Hide this suggestion for this note");
		await flush();
		expect(world.settings().hiddenSuggestions).toEqual({ "Alpha.md": ["Projects/Beta.md"] });
		expect([...root.querySelectorAll(".vaultheat-row")].map((r) => r.getAttribute("data-path"))).toEqual(["Gamma.md"]);
		root.querySelector<HTMLElement>(".vaultheat-row")!.dispatchEvent(new MouseEvent("contextmenu", { bubbles: true }));
		expect((Menu as unknown as { lastShown: { titles(): string[] } }).lastShown.titles()).not.toContain("Exclude folder “”");
	});

	it("shows honest relevance, the votes line, and hides weak matches with the threshold", async () => {
		world = makeWorld({ settings: { threshold: "good" } });
		const votes = { count: 9, k: 20, weight: 2, share: 0.5, bonus: 1, voters: [{ path: "Views.md", title: "Views", score: 0.84 }] };
		world.transport.on("POST /v1/related", () =>
			json(200, relatedDoc("Alpha.md", [
				relatedHit("Projects/Beta.md", { title: "Beta", score: 1.0, relevance: 0.74, relevance_label: "strong", votes }),
				relatedHit("Gamma.md", { title: "Gamma", score: 0.9, relevance: 0.2, relevance_label: "weak", votes: null }),
			])),
		);
		await goOnline(world);
		const { view } = await openSidebar(world);
		await openNote(world, "Alpha.md");
		await flush();
		const root = view.contentEl;
		const rows = [...root.querySelectorAll(".vaultheat-row")];
		expect(rows.map((r) => r.getAttribute("data-path"))).toEqual(["Projects/Beta.md"]);
		expect(text(rows[0]!.querySelector(".vaultheat-score-value"))).toBe("0.74");
		expect(text(rows[0]!.querySelector(".vaultheat-relevance"))).toBe("Strong");
		expect(text(rows[0]!.querySelector(".vaultheat-row-votes"))).toBe("Linked by 9 neighbours");
		expect(rows[0]!.getAttribute("aria-label")).toBe("Beta in Projects, unlinked, strong match, relevance 0.74, linked by 9 neighbours");
		expect(text(root.querySelector(".vaultheat-footer"))).toBe("1 note · 1 weak match hidden");
	});

	it("shows the votes and the link heat as one line, with the via notes in the label and the tooltip", async () => {
		world = makeWorld();
		const votes = { count: 5, k: 20, weight: 2, share: 0.5, bonus: 1, voters: [{ path: "Views.md", title: "Views", score: 0.84 }] };
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
		world.transport.on("POST /v1/related", () =>
			json(200, relatedDoc("Alpha.md", [
				relatedHit("Projects/Beta.md", { title: "Beta", relevance: 0.74, relevance_label: "strong", votes, link_heat }),
				relatedHit("Gamma.md", { title: "Gamma", relevance: 0.6, relevance_label: "strong", votes: null, link_heat: { ...link_heat, via: link_heat.via.slice(1) } }),
			])),
		);
		await goOnline(world);
		const { view } = await openSidebar(world);
		await openNote(world, "Alpha.md");
		await flush();
		const rows = [...view.contentEl.querySelectorAll(".vaultheat-row")];
		expect(rows).toHaveLength(2);
		const both = rows[0]!.querySelectorAll(".vaultheat-row-votes");
		expect(both).toHaveLength(1);
		expect(text(both[0])).toBe("Linked by 5 neighbours · via Raised Beds and 1 more");
		expect(both[0]!.getAttribute("title")).toBe("Linked from Views\nClose through your note's links: via Raised Beds, Tomatoes.");
		expect(rows[0]!.getAttribute("aria-label")).toBe("Beta in Projects, unlinked, strong match, relevance 0.74, linked by 5 neighbours, via Raised Beds and 1 more");
		const heatOnly = rows[1]!.querySelectorAll(".vaultheat-row-votes");
		expect(heatOnly).toHaveLength(1);
		expect(text(heatOnly[0])).toBe("Via Tomatoes");
		expect(heatOnly[0]!.getAttribute("title")).toBe("Close through your note's links: via Tomatoes.");
		expect(rows[1]!.getAttribute("aria-label")).toBe("Gamma, unlinked, strong match, relevance 0.60, via Tomatoes");
	});

	it("asks Obsidian's page preview on hover", async () => {
		const { root } = await ready();
		const seen: unknown[] = [];
		world.app.workspace.on("hover-link", (info) => seen.push(info));
		root.querySelector(".vaultheat-row")!.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
		expect(seen[0]).toMatchObject({ source: VIEW_TYPE_RELATED, linktext: "Projects/Beta.md", sourcePath: "Alpha.md" });
	});

	it("toggles unlinked only and explains an empty answer", async () => {
		const { root } = await ready();
		world.transport.on("POST /v1/related", () => json(200, relatedDoc("Alpha.md", [])));
		// An icon toggle in the nav header, like the Backlinks pane.
		const toggle = root.querySelector<HTMLElement>(".nav-header .nav-action-button.vaultheat-toggle")!;
		expect(toggle.getAttribute("aria-label")).toBe("Unlinked only");
		toggle.click();
		await flush();
		expect(toggle.getAttribute("aria-pressed")).toBe("true");
		expect(world.transport.bodies("POST /v1/related").at(-1)).toMatchObject({ unlinked_only: true });
		expect(text(root.querySelector(".vaultheat-state-title"))).toBe("Nothing unlinked");
		toggle.click();
		await flush();
		expect(text(root.querySelector(".vaultheat-state-title"))).toBe("No related notes yet");
	});

	it("tells the user to start the sidecar when nothing answers, and starts it on request", async () => {
		world = makeWorld({ withSidecar: true, settings: { autoStart: false } });
		world.transport.unreachable = true;
		await goOnline(world);
		const { view } = await openSidebar(world);
		await openNote(world, "Alpha.md");
		const root = view.contentEl;
		expect(text(root.querySelector(".vaultheat-state-title"))).toBe("The sidecar is not running");
		expect(text(root.querySelector(".vaultheat-command code"))).toBe('vaultheat serve --vault "/vault" --port 0');
		const buttons = [...root.querySelectorAll(".vaultheat-state-actions button")].map((b) => text(b));
		expect(buttons).toEqual(["Start sidecar", "Reconnect"]);
		(root.querySelector(".vaultheat-state-actions button") as HTMLElement).click();
		await flush();
		expect(world.fixes).toEqual(["start-sidecar"]);
		expect(world.spawned).toEqual([["vaultheat", "serve", "--vault", "/vault", "--port", "0", "--parent-pid", "4242"]]);
		expect(text(root.querySelector(".vaultheat-state-title"))).toBe("The vaultheat sidecar is not installed");
		expect(text(root.querySelector(".vaultheat-command code"))).toBe(INSTALL_COMMAND);
	});

	it("says the token was refused and opens the settings", async () => {
		world = makeWorld();
		world.transport.on("GET /v1/status", () => apiError(401, "unauthorized", "bad token"));
		await goOnline(world);
		const { view } = await openSidebar(world);
		await openNote(world, "Alpha.md");
		expect(text(view.contentEl.querySelector(".vaultheat-state-title"))).toBe("The sidecar refused the token");
		(view.contentEl.querySelector(".vaultheat-state-actions button") as HTMLElement).click();
		expect(world.app.setting.opened).toEqual(["vaultheat"]);
	});

	it("shows indexing progress while the first index is built", async () => {
		world = makeWorld();
		const progress = { stage: "Embedding", done: 45, total: 120, rate: 10, eta_s: 8 };
		world.transport.on("GET /v1/status", () => json(200, statusDoc({ state: "indexing", progress })));
		world.transport.on("POST /v1/related", () => apiError(409, "index_missing", "No index yet"));
		await goOnline(world);
		const { view } = await openSidebar(world);
		await openNote(world, "Alpha.md");
		const root = view.contentEl;
		expect(text(root.querySelector(".vaultheat-state-title"))).toBe("Indexing your vault…");
		const bar = root.querySelector("[role=progressbar]");
		expect(bar?.getAttribute("aria-valuenow")).toBe("45");
		expect(bar?.getAttribute("aria-valuemax")).toBe("120");
		expect(text(root.querySelector(".vaultheat-progress-text"))).toBe("Embedding · 45 of 120 · about 8 s left");
	});

	it("keeps the rows and shows a compact banner when a refresh fails", async () => {
		const { root, editor } = await ready();
		world.transport.on("POST /v1/related", () => apiError(409, "index_locked", "locked"));
		typeInto(editor, "x");
		await world.clock.advance(500);
		expect(root.querySelectorAll(".vaultheat-row")).toHaveLength(2);
		expect(text(root.querySelector(".vaultheat-banner .vaultheat-state-title"))).toBe("The index is busy");
	});

	it("refreshes when an index pass finishes", async () => {
		await ready();
		const n = world.transport.bodies("POST /v1/related").length;
		world.services.status.update((s) => ({ ...s, index: { ...s.index, revision: s.index.revision + 1 } }));
		await flush();
		expect(world.transport.bodies("POST /v1/related").length).toBe(n + 1);
	});

	it("removes its listeners when closed", async () => {
		const { leaf } = await ready();
		expect(world.app.workspace.listenerCount("editor-change")).toBe(1);
		leaf.detach();
		await flush();
		expect(world.app.workspace.listenerCount("editor-change")).toBe(0);
		expect(world.app.workspace.listenerCount("active-leaf-change")).toBe(0);
		expect(world.app.vault.listenerCount("rename")).toBe(0);
		expect(notices).toBeDefined();
	});
});

describe("a related row's graph line", () => {
	const handlers: RowHandlers = {
		open: () => undefined,
		insertLink: () => undefined,
		explain: () => undefined,
		hover: () => undefined,
		dragStart: () => undefined,
		toggleSelect: () => undefined,
		contextMenu: () => undefined,
	};
	const votes = { count: 9, k: 20, weight: 2, share: 0.5, bonus: 1, voters: [{ path: "Views.md", title: "Views", score: 0.84 }, { path: "Bases.md", title: "Bases", score: 0.8 }] };
	const row = (overrides: Parameters<typeof relatedHit>[1]): HTMLElement => renderRelatedRow(document.createElement("div"), relatedHit("Projects/Beta.md", { title: "Beta", relevance: 0.74, relevance_label: "strong", ...overrides }), handlers);

	it("without link heat, a row is drawn as it was: the votes line and its voters", () => {
		const plain = row({ votes });
		const lines = plain.querySelectorAll(".vaultheat-row-votes");
		expect(lines).toHaveLength(1);
		expect(text(lines[0])).toBe("Linked by 9 neighbours");
		expect(lines[0]!.getAttribute("title")).toBe("Linked from Views, Bases");
		expect(plain.getAttribute("aria-label")).toBe("Beta in Projects, unlinked, strong match, relevance 0.74, linked by 9 neighbours");
		// null, absent, and heat with no via note all draw the same row.
		expect(row({ votes, link_heat: null }).outerHTML).toBe(plain.outerHTML);
		expect(row({ votes, link_heat: { kind: "ra", heat: 0.1, top: 0.2, weight: 0.2, bonus: 0.1, via: [] } }).outerHTML).toBe(plain.outerHTML);
		// Neither votes nor heat: no graph line at all.
		const bare = row({ votes: null });
		expect(bare.querySelector(".vaultheat-row-votes")).toBeNull();
		expect(bare.getAttribute("aria-label")).toBe("Beta in Projects, unlinked, strong match, relevance 0.74");
	});

	it("with link heat, the via note joins the votes on the same line", () => {
		const el = row({ votes, link_heat: { kind: "ppr", heat: 0.02, top: 0.04, weight: 0.2, bonus: 0.1, via: [{ path: "Garden/Raised Beds.md", title: "Raised Beds" }] } });
		const lines = el.querySelectorAll(".vaultheat-row-votes");
		expect(lines).toHaveLength(1);
		expect(text(lines[0])).toBe("Linked by 9 neighbours · via Raised Beds");
		expect(lines[0]!.getAttribute("title")).toBe("Linked from Views, Bases\nClose through your note's links: via Raised Beds.");
		expect(el.getAttribute("aria-label")).toBe("Beta in Projects, unlinked, strong match, relevance 0.74, linked by 9 neighbours, via Raised Beds");
	});
});
