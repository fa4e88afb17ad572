/**
 * The snapshot wired through the services (desktop): written after the connection comes up and
 * after each index pass, through /v1/related/batch or, on an older server, /v1/related per note;
 * and read by the sidebar when the sidecar stops answering.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RelatedBatchRequest } from "../src/api/types";
import { decodeSnapshot, emptySnapshot, encodeSnapshot, entryOf, partFile, partOf, SNAPSHOT_FILE, type Snapshot } from "../src/state/snapshot";
import type { Ask } from "../src/views/confirm";
import { apiError, flush, json, MemoryFiles, relatedDoc, relatedHit } from "./helpers";
import { goOnline, makeWorld, openNote, openSidebar, text, type World } from "./world";

let world: World;
afterEach(() => world?.services.dispose());

/** Opted in (the setting, asked already). */
const ON = { keepSnapshot: true, snapshotAsked: true };

/** Every part on disk, read back into one snapshot. */
function readAll(files: MemoryFiles): Snapshot {
	const all = emptySnapshot();
	for (const name of files.parts()) for (const [p, e] of decodeSnapshot(files.files.get(name)!)!.notes) all.notes.set(p, e);
	return all;
}

/** Lets the snapshot's timer fire and its update finish. */
async function settle(world: World, ms = 3000): Promise<void> {
	await world.clock.advance(ms);
	await world.services.snapshot!.settled();
}

const LISTS: Record<string, string[]> = {
	"Alpha.md": ["Projects/Beta.md", "Gamma.md"],
	"Projects/Beta.md": ["Alpha.md"],
	"Gamma.md": ["Alpha.md"],
};

describe("the snapshot on the desktop", () => {
	it("is written in parts through /v1/related/batch once online, and again after an index pass only for what changed", async () => {
		const files = new MemoryFiles();
		world = makeWorld({ snapshotFiles: files, settings: ON });
		world.transport.on("POST /v1/related/batch", (_req, body) => {
			const { paths } = body as RelatedBatchRequest;
			return json(200, { schema: "vaultheat.related_batch.v1", took_ms: 3, notes: paths.map((p) => ({ path: p, results: (LISTS[p] ?? []).map((h) => relatedHit(h, { relevance: 0.7, relevance_label: "good" })) })), missing: [] });
		});
		await goOnline(world);
		await settle(world);
		const parts = [...new Set(["Alpha.md", "Gamma.md", "Projects/Beta.md"].map((p) => partFile(partOf(p))))].sort();
		expect(files.parts()).toEqual(parts);
		expect(files.writes.sort()).toEqual(parts);
		const snap = readAll(files);
		expect([...snap.notes.keys()].sort()).toEqual(["Alpha.md", "Gamma.md", "Projects/Beta.md"]);
		expect(snap.notes.get("Alpha.md")?.hits.map((h) => [h.path, h.label])).toEqual([["Projects/Beta.md", "good"], ["Gamma.md", "good"]]);

		// Gamma is edited; the index pass ends (revision bump): Gamma and the notes listing it.
		world.app.vault.getFileByPath("Gamma.md")!.stat.mtime = Date.now() + 60_000;
		world.transport.requests.length = 0;
		world.services.status.update((s) => ({ ...s, index: { ...s.index, revision: s.index.revision + 1 } }));
		files.writes.length = 0;
		await settle(world);
		const asked = world.transport.bodies("POST /v1/related/batch").flatMap((b) => (b as RelatedBatchRequest).paths);
		expect(asked.sort()).toEqual(["Alpha.md", "Gamma.md"]); // Beta lists neither
		// Gamma's entry changed (its mtime); Alpha's list is the same: only Gamma's part is written.
		expect(files.writes).toEqual([partFile(partOf("Gamma.md"))]);
	});

	it("falls back to /v1/related per note on a server without the batch route", async () => {
		const files = new MemoryFiles();
		world = makeWorld({ snapshotFiles: files, settings: ON });
		world.transport.on("POST /v1/related", (_req, body) => {
			const path = (body as { path: string }).path;
			return path === "Gamma.md" ? apiError(404, "not_found") : json(200, relatedDoc(path, (LISTS[path] ?? []).map((h) => relatedHit(h))));
		});
		await goOnline(world);
		await settle(world);
		expect(world.transport.bodies("POST /v1/related").map((b) => (b as { path: string }).path).sort()).toEqual(["Alpha.md", "Gamma.md", "Projects/Beta.md"]);
		expect([...readAll(files).notes.keys()].sort()).toEqual(["Alpha.md", "Projects/Beta.md"]);
	});

	it("is off by default: nothing is fetched or written until the user opts in, then the parts are written", async () => {
		const files = new MemoryFiles();
		world = makeWorld({ snapshotFiles: files });
		expect(world.settings().keepSnapshot).toBe(false);
		world.transport.on("POST /v1/related/batch", (_req, body) => {
			const { paths } = body as RelatedBatchRequest;
			return json(200, { schema: "vaultheat.related_batch.v1", took_ms: 3, notes: paths.map((p) => ({ path: p, results: (LISTS[p] ?? []).map((h) => relatedHit(h)) })), missing: [] });
		});
		await goOnline(world);
		await settle(world, 5000);
		expect(files.writes).toEqual([]);
		expect(files.reads).toEqual([]); // not even read: no note asked for it
		expect(world.transport.bodies("POST /v1/related/batch")).toEqual([]);

		await world.services.viewContext().saveSettings({ keepSnapshot: true, snapshotAsked: true });
		await settle(world, 0);
		expect(files.parts().length).toBeGreaterThan(0);
		expect([...readAll(files).notes.keys()].sort()).toEqual(["Alpha.md", "Gamma.md", "Projects/Beta.md"]);
		expect(files.files.has(SNAPSHOT_FILE)).toBe(false);
	});

	it("answers the sidebar when the sidecar stops answering, with its time", async () => {
		world = makeWorld({ snapshotFiles: new MemoryFiles(), settings: ON });
		world.clock.time = Date.now() + 10_000; // the snapshot is newer than every note
		world.transport.on("POST /v1/related/batch", (_req, body) => {
			const { paths } = body as RelatedBatchRequest;
			return json(200, { schema: "vaultheat.related_batch.v1", took_ms: 3, notes: paths.map((p) => ({ path: p, results: (LISTS[p] ?? []).map((h) => relatedHit(h)) })), missing: [] });
		});
		await goOnline(world);
		await settle(world);
		world.transport.unreachable = true;
		const { view } = await openSidebar(world);
		await openNote(world, "Alpha.md");
		await world.clock.advance(0);
		await flush();
		const root = view.contentEl;
		expect([...root.querySelectorAll(".vaultheat-row-title")].map(text)).toEqual(["Beta", "Gamma"]);
		expect(text(root.querySelector(".vaultheat-snapshot-banner"))).toMatch(/From the snapshot, as of/);
		expect(text(root.querySelector(".vaultheat-snapshot-banner"))).toContain("The sidecar does not answer.");
		expect(text(root.querySelector(".vaultheat-snapshot-banner"))).not.toContain("changed since");
	});
});

describe("asking whether to keep the snapshot (desktop)", () => {
	function asking(settings: Record<string, unknown>, files = new MemoryFiles(), answer = true) {
		const asks: Ask[] = [];
		world = makeWorld({
			snapshotFiles: files,
			settings,
			confirm: async (ask) => {
				asks.push(ask);
				return answer;
			},
		});
		return asks;
	}

	it("asks nothing on a fresh install no phone opened", async () => {
		const asks = asking({});
		await world.services.offerSnapshot();
		expect(asks).toEqual([]);
		expect(world.settings().keepSnapshot).toBe(false);
	});

	it("asks once when a phone opened the vault (its marker arrives in data.json), and keeps the answer", async () => {
		const asks = asking({});
		await world.services.viewContext().saveSettings({ phoneSeen: 1_700_000_000_000 });
		await flush();
		expect(asks.map((a) => a.title)).toEqual(["Keep a related notes snapshot for mobile?"]);
		expect(asks[0]!.body).toContain("ran on a phone or tablet");
		expect(world.settings()).toMatchObject({ keepSnapshot: true, snapshotAsked: true });
		await world.services.offerSnapshot();
		expect(asks).toHaveLength(1);
	});

	it("an older version's data (the snapshot on by default) loads with it off; its file stays, and the desktop asks once", async () => {
		const files = new MemoryFiles();
		const old = emptySnapshot();
		old.notes.set("Alpha.md", entryOf("Alpha.md", [relatedHit("Gamma.md")], 1, 2, 10));
		files.put(SNAPSHOT_FILE, encodeSnapshot(old));
		const asks = asking({ keepSnapshot: true, snapshotAsked: undefined }, files, false);
		expect(world.settings().keepSnapshot).toBe(false);
		await world.services.offerSnapshot();
		expect(asks).toHaveLength(1);
		expect(asks[0]!.body).toContain("now off unless you turn it on");
		expect(world.settings()).toMatchObject({ keepSnapshot: false, snapshotAsked: true });
		expect(files.files.has(SNAPSHOT_FILE)).toBe(true); // kept until the user chooses
		expect(files.writes).toEqual([]);
	});
});
