import { describe, expect, it } from "vitest";
import type { RelatedHit } from "../../src/api/types";
import {
	asRelatedHit,
	boundSnapshot,
	decodeSnapshot,
	emptySnapshot,
	encodeSnapshot,
	entryOf,
	lookup,
	MAX_TOP,
	planRefresh,
	type Snapshot,
} from "../../src/state/snapshot";
import { type RelatedBatch, SnapshotKeeper } from "../../src/state/snapshot-keeper";
import { ManualClock, relatedHit } from "../helpers";

const votes = (count: number) => ({ count, k: 20, weight: 2, share: 0.3, bonus: 0.6, voters: [] });

function snap(lists: Record<string, { mtime?: number; at?: number; hits: string[] }>): Snapshot {
	const s = emptySnapshot();
	for (const [path, l] of Object.entries(lists)) {
		s.notes.set(path, entryOf(path, l.hits.map((h) => relatedHit(h)), l.mtime ?? 1000, l.at ?? 5000, MAX_TOP));
	}
	return s;
}

describe("snapshot format", () => {
	it("round-trips every field, writing each path once", () => {
		const s = emptySnapshot();
		s.updated = 1234;
		s.notes.set(
			"A.md",
			entryOf(
				"A.md",
				[
					relatedHit("Folder/B.md", { relevance: 0.8123, relevance_label: "strong", link_status: "both", votes: votes(9) }),
					relatedHit("C.md", { link_status: "unlinked", best_chunk: { ...relatedHit("C.md").best_chunk, line_start: 42 } }),
				],
				111,
				222,
				10,
			),
		);
		s.notes.set("Folder/B.md", entryOf("Folder/B.md", [relatedHit("A.md", { relevance: 0.5, relevance_label: "good" })], 333, 444, 10));
		const text = encodeSnapshot(s);
		expect(JSON.parse(text).paths.sort()).toEqual(["A.md", "C.md", "Folder/B.md"]);
		const back = decodeSnapshot(text)!;
		expect(back.updated).toBe(1234);
		expect(back.notes.get("A.md")).toEqual({
			mtime: 111,
			at: 222,
			hits: [
				{ path: "Folder/B.md", relevance: 0.812, label: "strong", link: "both", votes: 9, line: 3 },
				{ path: "C.md", relevance: null, label: null, link: "unlinked", votes: 0, line: 42 },
			],
		});
		expect(back.notes.get("Folder/B.md")?.hits[0]).toMatchObject({ path: "A.md", label: "good", relevance: 0.5 });
	});

	it.each([
		["not JSON", "{"],
		["another format", JSON.stringify({ format: "other", paths: [], notes: [] })],
		["no lists", JSON.stringify({ format: "vaultheat.snapshot.v1" })],
	])("reads %s as no snapshot", (_name, text) => {
		expect(decodeSnapshot(text)).toBeNull();
	});

	it("keeps at most `top` hits, never the note itself", () => {
		const hits = ["A.md", ...Array.from({ length: 30 }, (_, i) => `N${i}.md`)].map((p) => relatedHit(p));
		const entry = entryOf("A.md", hits, 0, 0, 50);
		expect(entry.hits).toHaveLength(MAX_TOP);
		expect(entry.hits.map((h) => h.path)).not.toContain("A.md");
	});

	it("drops the oldest lists past the note limit", () => {
		const s = snap({ "A.md": { at: 3, hits: [] }, "B.md": { at: 1, hits: [] }, "C.md": { at: 2, hits: [] } });
		boundSnapshot(s, 2);
		expect([...s.notes.keys()].sort()).toEqual(["A.md", "C.md"]);
	});

	it("keeps link heat's via notes, and reads an older snapshot without them", () => {
		const link_heat = {
			kind: "ra" as const,
			heat: 0.3,
			top: 0.5,
			weight: 0.2,
			bonus: 0.12,
			via: [
				{ path: "Garden/Raised Beds.md", title: "Raised Beds" },
				{ path: "A.md", title: "A" },
			],
		};
		const s = emptySnapshot();
		s.notes.set("A.md", entryOf("A.md", [relatedHit("B.md", { link_heat }), relatedHit("C.md", { link_heat: null }), relatedHit("D.md")], 1, 2, MAX_TOP));
		expect(s.notes.get("A.md")!.hits.map((h) => h.via)).toEqual([["Garden/Raised Beds.md", "A.md"], undefined, undefined]);
		const text = encodeSnapshot(s);
		const doc = JSON.parse(text) as { paths: string[]; notes: [number, number, number, unknown[][]][] };
		// Each path once; hits without via keep the six-field form older plugins write.
		expect(doc.paths).toEqual(["B.md", "Garden/Raised Beds.md", "A.md", "C.md", "D.md"]);
		expect(doc.notes[0]![3].map((h) => h.length)).toEqual([7, 6, 6]);
		const back = decodeSnapshot(text)!;
		expect(back.notes.get("A.md")!.hits[0]!.via).toEqual(["Garden/Raised Beds.md", "A.md"]);
		expect(back.notes.get("A.md")!.hits[1]).not.toHaveProperty("via");

		const older = JSON.stringify({ format: "vaultheat.snapshot.v1", updated: 1, top: 10, paths: ["A.md", "B.md"], notes: [[0, 1, 2, [[1, 800, "s", 3, "u", 4]]]] });
		const hit = decodeSnapshot(older)!.notes.get("A.md")!.hits[0]!;
		expect(hit).toEqual({ path: "B.md", relevance: 0.8, label: "strong", votes: 3, link: "unlinked", line: 4 });
		expect(hit).not.toHaveProperty("via");
		expect(asRelatedHit(hit, 1)).not.toHaveProperty("link_heat");
		// A via index past the paths is dropped, not a crash.
		const broken = JSON.stringify({ format: "vaultheat.snapshot.v1", updated: 1, top: 10, paths: ["A.md", "B.md"], notes: [[0, 1, 2, [[1, 800, "s", 3, "u", 4, [9]]]]] });
		expect(decodeSnapshot(broken)!.notes.get("A.md")!.hits[0]).not.toHaveProperty("via");
	});

	it("a snapshot hit with via notes renders the row's via line", () => {
		const hit = asRelatedHit({ path: "X.md", relevance: 0.5, label: "good", link: "unlinked", votes: 0, via: ["Garden/Raised Beds.md", "Tomatoes.md"], line: 1 }, 1);
		expect(hit.link_heat?.via).toEqual([
			{ path: "Garden/Raised Beds.md", title: "Raised Beds" },
			{ path: "Tomatoes.md", title: "Tomatoes" },
		]);
	});

	it("a snapshot hit renders as a row with its relevance, label, link and votes", () => {
		const hit = asRelatedHit({ path: "Folder/Note.md", relevance: 0.7, label: "good", link: "linked", votes: 3, line: 8 }, 1);
		expect(hit).toMatchObject({ title: "Note", folder: "Folder", relevance: 0.7, relevance_label: "good", link_status: "linked", votes: { count: 3 } });
		expect(hit.best_chunk.line_start).toBe(8);
		expect(asRelatedHit({ path: "X.md", relevance: null, label: null, link: "unlinked", votes: 0, line: 1 }, 2).votes).toBeNull();
	});
});

describe("planRefresh", () => {
	const s = snap({
		"A.md": { mtime: 1000, hits: ["B.md", "C.md"] },
		"B.md": { mtime: 1000, hits: ["A.md"] },
		"C.md": { mtime: 1000, hits: ["D.md"] },
		"D.md": { mtime: 1000, hits: ["C.md"] },
	});

	it("nothing to do when nothing changed (mtimes within the slack)", () => {
		const files = ["A.md", "B.md", "C.md", "D.md"].map((path) => ({ path, mtime: 1500 }));
		expect(planRefresh(s, files)).toEqual({ refresh: [], remove: [] });
	});

	it("an edited note and the notes that list it", () => {
		const files = [
			{ path: "A.md", mtime: 1000 },
			{ path: "B.md", mtime: 1000 },
			{ path: "C.md", mtime: 9000 },
			{ path: "D.md", mtime: 1000 },
		];
		expect(planRefresh(s, files).refresh.sort()).toEqual(["A.md", "C.md", "D.md"]);
	});

	it("a listed note whose own list is not kept (a PDF, say) is not read as gone", () => {
		const withPdf = snap({ "A.md": { mtime: 1000, hits: ["Paper.pdf", "B.md"] }, "B.md": { mtime: 1000, hits: ["A.md"] } });
		const files = ["A.md", "B.md"].map((path) => ({ path, mtime: 1000 }));
		expect(planRefresh(withPdf, files).refresh).toEqual(["A.md"]); // by default: not among the files
		expect(planRefresh(withPdf, files, (p) => p !== "Gone.md").refresh).toEqual([]);
	});

	it("a new note is fetched; a deleted one is removed and its referrers refreshed", () => {
		const files = [
			{ path: "A.md", mtime: 1000 },
			{ path: "B.md", mtime: 1000 },
			{ path: "C.md", mtime: 1000 },
			{ path: "E.md", mtime: 1000 },
		];
		const work = planRefresh(s, files);
		expect(work.remove).toEqual(["D.md"]);
		expect(work.refresh.sort()).toEqual(["C.md", "E.md"]);
	});
});

describe("lookup (the mobile side)", () => {
	const s = snap({ "A.md": { mtime: 1000, at: 5000, hits: ["B.md", "C.md", "Gone.md"] } });
	const mtimes: Record<string, number> = { "A.md": 1000, "B.md": 4000, "C.md": 90000 };

	it("gives the list with its time, marks notes changed since, leaves out deleted ones", () => {
		const answer = lookup(s, "A.md", (p) => mtimes[p] ?? null)!;
		expect(answer.at).toBe(5000);
		expect(answer.noteChanged).toBe(false);
		expect(answer.hits.map((h) => h.path)).toEqual(["B.md", "C.md"]);
		expect(answer.changed).toEqual(["C.md"]);
	});

	it("says when the open note itself changed since", () => {
		expect(lookup(s, "A.md", (p) => (p === "A.md" ? 60000 : (mtimes[p] ?? null)))?.noteChanged).toBe(true);
	});

	it("null for a note the snapshot does not hold", () => {
		expect(lookup(s, "Z.md", () => 1)).toBeNull();
	});
});

describe("SnapshotKeeper", () => {
	function keeper(files: { path: string; mtime: number }[], lists: Record<string, string[]>, saved: string | null = null) {
		const clock = new ManualClock();
		clock.time = 10_000;
		const asked: string[][] = [];
		const writes: string[] = [];
		const k = new SnapshotKeeper({
			relatedMany: async (paths): Promise<RelatedBatch> => {
				asked.push([...paths]);
				const known = paths.filter((p) => p in lists);
				return { notes: known.map((p) => ({ path: p, results: (lists[p] ?? []).map((h): RelatedHit => relatedHit(h)) })), missing: paths.filter((p) => !(p in lists)) };
			},
			listNotes: () => files,
			load: async () => saved,
			save: async (text) => {
				writes.push(text);
			},
			clock,
			batchSize: 2,
		});
		return { k, asked, writes, clock };
	}

	it("builds every list in batches and writes the file once", async () => {
		const files = ["A.md", "B.md", "C.md"].map((path) => ({ path, mtime: 1000 }));
		const { k, asked, writes } = keeper(files, { "A.md": ["B.md"], "B.md": ["A.md", "C.md"], "C.md": ["B.md"] });
		const report = await k.update();
		expect(asked).toEqual([["A.md", "B.md"], ["C.md"]]);
		expect(writes).toHaveLength(1);
		expect(report).toMatchObject({ refreshed: 3, removed: 0 });
		expect(decodeSnapshot(writes[0]!)?.notes.get("B.md")?.hits.map((h) => h.path)).toEqual(["A.md", "C.md"]);
	});

	it("after one edit fetches that note, the notes listing it and the notes it now lists; then nothing", async () => {
		const files = ["A.md", "B.md", "C.md", "D.md"].map((path) => ({ path, mtime: 1000 }));
		const lists = { "A.md": ["B.md"], "B.md": ["A.md"], "C.md": ["D.md"], "D.md": ["C.md"] };
		const { k, asked, writes } = keeper(files, lists);
		await k.update();
		asked.length = 0;
		files[0] = { path: "A.md", mtime: 50_000 };
		lists["A.md"] = ["C.md"]; // A was rewritten: now close to C, which lists D only
		await k.update();
		expect(asked.flat().sort()).toEqual(["A.md", "B.md", "C.md"]);
		asked.length = 0;
		const again = await k.update();
		expect(asked).toEqual([]);
		expect(again?.refreshed).toBe(0);
		expect(writes).toHaveLength(2);
	});

	it("drops notes the index does not hold and a deleted note's list", async () => {
		const files = ["A.md", "B.md", "Skipped.md"].map((path) => ({ path, mtime: 1000 }));
		const lists: Record<string, string[]> = { "A.md": ["B.md"], "B.md": ["A.md"] };
		const { k } = keeper(files, lists);
		await k.update();
		expect([...k.snapshot.notes.keys()].sort()).toEqual(["A.md", "B.md"]);
		files.splice(1, 1);
		delete lists["B.md"];
		lists["A.md"] = [];
		const report = await k.update();
		expect(report?.removed).toBe(1);
		expect(k.snapshot.notes.get("A.md")?.hits).toEqual([]);
	});

	it("a long build writes what it has every 20 batches, so a cut-short one keeps it", async () => {
		const files = Array.from({ length: 90 }, (_, i) => ({ path: `N${i}.md`, mtime: 1000 }));
		const { k, writes } = keeper(files, Object.fromEntries(files.map((f) => [f.path, []])));
		await k.update(); // 45 batches of 2: checkpoints after batch 20 and 40, then the end
		expect(writes.map((w) => decodeSnapshot(w)!.notes.size)).toEqual([40, 80, 90]);
	});

	it("starts from the file written last time", async () => {
		const previous = encodeSnapshot(snap({ "A.md": { mtime: 1000, hits: ["B.md"] }, "B.md": { mtime: 1000, hits: ["A.md"] } }));
		const files = ["A.md", "B.md"].map((path) => ({ path, mtime: 1000 }));
		const { k, asked } = keeper(files, { "A.md": ["B.md"], "B.md": ["A.md"] }, previous);
		await k.update();
		expect(asked).toEqual([]);
	});

	it("a second update asked for while one runs runs once more, after it", async () => {
		const files = [{ path: "A.md", mtime: 1000 }];
		const { k, asked } = keeper(files, { "A.md": [] });
		const first = k.update();
		const second = k.update();
		const third = k.update();
		await Promise.all([first, second, third]);
		expect(asked).toEqual([["A.md"]]); // the queued pass found nothing new to fetch
	});
});
