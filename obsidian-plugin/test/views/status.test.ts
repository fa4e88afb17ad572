import { afterEach, describe, expect, it } from "vitest";
import { mountStatusBar } from "../../src/views/status-bar";
import { StatusModal } from "../../src/views/status-modal";
import { flush, json, statusDoc } from "../helpers";
import { goOnline, key, makeWorld, openNote, text, type World } from "../world";

let world: World;
afterEach(() => {
	for (const m of [...(world?.app.openModals ?? [])]) m.close();
	world?.services.dispose();
});

describe("status bar", () => {
	it("follows the connection and the index, and opens the details", async () => {
		world = makeWorld();
		const el = document.createElement("div");
		let clicks = 0;
		const unsubscribe = mountStatusBar(el, world.services.status, () => clicks++);
		expect(text(el)).toBe("Connecting…");
		expect(el.querySelector(".vaultheat-statusbar-dot")?.className).toContain("is-busy");
		await goOnline(world);
		expect(text(el)).toBe("12 notes");
		expect(el.getAttribute("aria-label")).toBe("Vaultheat: 12 notes. Ready: every note is indexed. Click for details.");
		world.services.status.update((s) => ({ ...s, index: { ...s.index, status: statusDoc({ state: "indexing" }), progress: { stage: "embed", done: 3, total: 9, rate: 1, eta_s: 6 } } }));
		expect(text(el)).toBe("Indexing 3/9");
		world.services.status.update((s) => ({
			...s,
			index: { ...s.index, progress: null, status: statusDoc({ state: "incomplete", state_detail: "736 of 6,571 notes indexed; 6,463 graph tasks pending" }) },
		}));
		expect(text(el)).toBe("12 notes (incomplete)");
		expect(el.getAttribute("aria-label")).toContain("Incomplete: 736 of 6,571 notes indexed; 6,463 graph tasks pending");
		world.services.status.update((s) => ({ ...s, index: { ...s.index, status: statusDoc({ state: "indexing" }), progress: { stage: "embed", done: 3, total: 9, rate: 1, eta_s: 6 } } }));
		el.click();
		key(el, "Enter");
		expect(clicks).toBe(2);
		unsubscribe();
		world.services.status.update((s) => ({ ...s, connection: { ...s.connection, phase: "offline" } }));
		expect(text(el)).toBe("Indexing 3/9");
	});
});

describe("status modal", () => {
	it("shows the counts, the skipped files and the active note's status", async () => {
		world = makeWorld();
		world.transport.on("GET /v1/status", () =>
			json(200, statusDoc({ notes: 1234, skipped: [{ path: "Big.md", reason: "larger than 2 MB" }, { path: "Private.md", reason: "excluded by frontmatter" }] })),
		);
		world.transport.on("GET /v1/notes/status", () =>
			json(200, { schema: "vaultheat.note_status.v1", path: "Alpha.md", exists: true, indexed: true, reason: null, chunks: 3, indexed_hash: "a", disk_hash: "b", fresh: false }),
		);
		await goOnline(world);
		await openNote(world, "Alpha.md");
		new StatusModal(world.services.viewContext()).open();
		await flush();
		const modal = document.querySelector(".vaultheat-status-modal")!;
		const facts = Object.fromEntries([...modal.querySelectorAll("dt")].map((dt) => [text(dt), text(dt.nextElementSibling)]));
		expect(facts).toMatchObject({
			Address: "http://127.0.0.1:51764",
			"Server version": "0.1.0",
			Notes: "1,234",
			Links: "30 resolved, 2 unresolved",
			Model: "all-MiniLM-L6-v2 (local, 384 dimensions)",
			Indexed: "Yes, 3 passages",
			"Up to date": "No: changed since it was indexed",
		});
		expect([...modal.querySelectorAll(".vaultheat-skipped li")].map((li) => text(li))).toEqual(["Big.md larger than 2 MB", "Private.md excluded by frontmatter"]);
		expect(world.transport.requests.at(-1)?.req.url).toContain("/v1/notes/status?path=Alpha.md");
	});

	it("shows the multilingual vectors and the passages per language once, each when the sidecar sends it", async () => {
		world = makeWorld();
		world.transport.on("GET /v1/status", () =>
			json(200, statusDoc({ chunks: 1246, languages: { en: 1234, de: 12 }, spaces: { multilingual: { state: "filling", vectors: 600 } } })),
		);
		await goOnline(world);
		new StatusModal(world.services.viewContext()).open();
		await flush();
		const modal = document.querySelector(".vaultheat-status-modal")!;
		const rows = [...modal.querySelectorAll("dt")].map((dt) => [text(dt), text(dt.nextElementSibling)]);
		expect(rows.filter(([k]) => k === "Multilingual vectors")).toEqual([["Multilingual vectors", "600 of 1,246 passages, filling"]]);
		expect(rows.filter(([k]) => k === "Languages")).toEqual([["Languages", "English 1,234 · German 12"]]);
		for (const m of [...world.app.openModals]) m.close();
		world.services.dispose();

		world = makeWorld();
		world.transport.on("GET /v1/status", () => json(200, statusDoc({})));
		await goOnline(world);
		new StatusModal(world.services.viewContext()).open();
		await flush();
		const plain = [...document.querySelectorAll(".vaultheat-status-modal dt")].map((dt) => text(dt));
		expect(plain).not.toContain("Languages");
		expect(plain).not.toContain("Multilingual vectors");
	});

	it("runs index actions from its buttons and updates live", async () => {
		world = makeWorld();
		world.transport.on("POST /v1/index", () => json(200, { schema: "vaultheat.ack.v1" }));
		world.transport.on("POST /v1/index/pause", () => json(200, { schema: "vaultheat.ack.v1" }));
		await goOnline(world);
		new StatusModal(world.services.viewContext()).open();
		const buttons = () => [...document.querySelectorAll(".vaultheat-status-modal button")];
		expect(buttons().map((b) => text(b))).toEqual(["Update index", "Rebuild index", "Pause indexing", "Reconnect"]);
		expect(buttons().map((b) => text(b))).not.toContain("Start sidecar");
		(buttons().find((b) => text(b) === "Pause indexing") as HTMLElement).click();
		await flush();
		expect(world.fixes).toEqual(["pause-index"]);
		expect(world.transport.bodies("POST /v1/index/pause")).toHaveLength(1);
		world.services.status.update((s) => ({ ...s, index: { ...s.index, status: statusDoc({ notes: 99 }) } }));
		expect(text(document.querySelector(".vaultheat-status-modal"))).toContain("Notes99");
		(buttons().find((b) => text(b) === "Update index") as HTMLElement).click();
		await flush();
		expect(world.transport.bodies("POST /v1/index")).toEqual([{}]);
		expect(world.app.openModals).toHaveLength(0);
	});

	it("keeps its parts while events arrive: open details and scrolling stay, counts refresh", async () => {
		world = makeWorld({ withSidecar: true, settings: { autoStart: false } });
		await goOnline(world);
		world.services.status.update((s) => ({ ...s, sidecar: { ...s.sidecar, phase: "running", pid: 7, output: ["loaded model"] } }));
		new StatusModal(world.services.viewContext()).open();
		const modal = document.querySelector(".vaultheat-status-modal")!;
		const details = modal.querySelector("details")!;
		details.open = true;
		details.dispatchEvent(new Event("toggle"));
		const notesCell = [...modal.querySelectorAll("dt")].find((d) => text(d) === "Notes")!.nextElementSibling!;
		const connectionPart = modal.querySelector(".is-connection")!;
		// A progress event for the index leaves the connection part alone.
		world.services.status.update((s) => ({ ...s, index: { ...s.index, progress: { stage: "embed", done: 1, total: 4, rate: null, eta_s: null } } }));
		expect(modal.querySelector(".is-connection")).toBe(connectionPart);
		expect(modal.querySelector("details")).toBe(details);
		expect(details.open).toBe(true);
		// After an update every count is current (not only notes and chunks).
		world.transport.on("GET /v1/status", () => json(200, statusDoc({ notes: 13, vectors: 41, tags: 6, edges: { similar: 9, link: 5, tag: 3 } })));
		world.services.connection.refreshStatus();
		await flush();
		const facts = Object.fromEntries([...modal.querySelectorAll("dt")].map((dt) => [text(dt), text(dt.nextElementSibling)]));
		expect(facts).toMatchObject({ Notes: "13", Vectors: "41", Tags: "6", "Graph edges": "5 link, 9 similar, 3 tag", State: "Ready: every note is indexed" });
		expect(notesCell.isConnected).toBe(false);
		expect(facts.Model).not.toContain("null");
		// Obsidian started this sidecar: it offers to stop it, never to start a second one.
		const labels = [...modal.querySelectorAll("button")].map((b) => text(b));
		expect(labels).toContain("Stop sidecar");
		expect(labels).not.toContain("Start sidecar");
	});
});
