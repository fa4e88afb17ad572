/**
 * The snapshot wired through the services (desktop): written after the connection comes up and
 * after each index pass, through /v1/related/batch or, on an older server, /v1/related per note;
 * and read by the sidebar when the sidecar stops answering.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RelatedBatchRequest } from "../src/api/types";
import { decodeSnapshot } from "../src/state/snapshot";
import { apiError, flush, json, relatedDoc, relatedHit } from "./helpers";
import { goOnline, makeWorld, openNote, openSidebar, text, type World } from "./world";

let world: World;
afterEach(() => world?.services.dispose());

function withFile() {
	const file = { text: null as string | null, writes: 0 };
	const snapshotFile = {
		load: async () => file.text,
		save: async (t: string) => {
			file.text = t;
			file.writes++;
		},
	};
	return { file, snapshotFile };
}

const LISTS: Record<string, string[]> = {
	"Alpha.md": ["Projects/Beta.md", "Gamma.md"],
	"Projects/Beta.md": ["Alpha.md"],
	"Gamma.md": ["Alpha.md"],
};

describe("the snapshot on the desktop", () => {
	it("is written through /v1/related/batch once online, and again after an index pass only for what changed", async () => {
		const { file, snapshotFile } = withFile();
		world = makeWorld({ snapshotFile });
		world.transport.on("POST /v1/related/batch", (_req, body) => {
			const { paths } = body as RelatedBatchRequest;
			return json(200, { schema: "vaultheat.related_batch.v1", took_ms: 3, notes: paths.map((p) => ({ path: p, results: (LISTS[p] ?? []).map((h) => relatedHit(h, { relevance: 0.7, relevance_label: "good" })) })), missing: [] });
		});
		await goOnline(world);
		await world.clock.advance(3000);
		expect(file.writes).toBe(1);
		const snap = decodeSnapshot(file.text!)!;
		expect([...snap.notes.keys()].sort()).toEqual(["Alpha.md", "Gamma.md", "Projects/Beta.md"]);
		expect(snap.notes.get("Alpha.md")?.hits.map((h) => [h.path, h.label])).toEqual([["Projects/Beta.md", "good"], ["Gamma.md", "good"]]);

		// Gamma is edited; the index pass ends (revision bump): Gamma and the notes listing it.
		world.app.vault.getFileByPath("Gamma.md")!.stat.mtime = Date.now() + 60_000;
		world.transport.requests.length = 0;
		world.services.status.update((s) => ({ ...s, index: { ...s.index, revision: s.index.revision + 1 } }));
		await world.clock.advance(3000);
		const asked = world.transport.bodies("POST /v1/related/batch").flatMap((b) => (b as RelatedBatchRequest).paths);
		expect(asked.sort()).toEqual(["Alpha.md", "Gamma.md"]); // Beta lists neither

		expect(file.writes).toBe(2);
	});

	it("falls back to /v1/related per note on a server without the batch route", async () => {
		const { file, snapshotFile } = withFile();
		world = makeWorld({ snapshotFile });
		world.transport.on("POST /v1/related", (_req, body) => {
			const path = (body as { path: string }).path;
			return path === "Gamma.md" ? apiError(404, "not_found") : json(200, relatedDoc(path, (LISTS[path] ?? []).map((h) => relatedHit(h))));
		});
		await goOnline(world);
		await world.clock.advance(3000);
		expect(world.transport.bodies("POST /v1/related").map((b) => (b as { path: string }).path).sort()).toEqual(["Alpha.md", "Gamma.md", "Projects/Beta.md"]);
		expect([...decodeSnapshot(file.text!)!.notes.keys()].sort()).toEqual(["Alpha.md", "Projects/Beta.md"]);
	});

	it("is not written with the setting off", async () => {
		const { file, snapshotFile } = withFile();
		world = makeWorld({ snapshotFile, settings: { keepSnapshot: false } });
		await goOnline(world);
		await world.clock.advance(5000);
		expect(file.writes).toBe(0);
		expect(world.transport.bodies("POST /v1/related/batch")).toEqual([]);
	});

	it("answers the sidebar when the sidecar stops answering, with its time", async () => {
		const { snapshotFile } = withFile();
		world = makeWorld({ snapshotFile });
		world.clock.time = Date.now() + 10_000; // the snapshot is newer than every note
		world.transport.on("POST /v1/related/batch", (_req, body) => {
			const { paths } = body as RelatedBatchRequest;
			return json(200, { schema: "vaultheat.related_batch.v1", took_ms: 3, notes: paths.map((p) => ({ path: p, results: (LISTS[p] ?? []).map((h) => relatedHit(h)) })), missing: [] });
		});
		await goOnline(world);
		await world.clock.advance(3000);
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
