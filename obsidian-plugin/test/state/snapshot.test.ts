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
	PARTS,
	partFile,
	partOf,
	planRefresh,
	type Snapshot,
	SNAPSHOT_FILE,
} from "../../src/state/snapshot";
import { type RelatedBatch, SnapshotKeeper } from "../../src/state/snapshot-keeper";
import { ManualClock, MemoryFiles, relatedHit } from "../helpers";

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

/** Every part on disk, read back into one snapshot. */
function readAll(files: MemoryFiles): Snapshot {
	const all = emptySnapshot();
	for (const name of files.parts()) for (const [p, e] of decodeSnapshot(files.files.get(name)!)!.notes) all.notes.set(p, e);
	return all;
}

describe("SnapshotKeeper", () => {
	function keeper(files: { path: string; mtime: number }[], lists: Record<string, string[]>, disk = new MemoryFiles()) {
		const clock = new ManualClock();
		clock.time = 10_000;
		const asked: string[][] = [];
		const warnings: string[] = [];
		const k = new SnapshotKeeper({
			relatedMany: async (paths): Promise<RelatedBatch> => {
				asked.push([...paths]);
				const known = paths.filter((p) => p in lists);
				return { notes: known.map((p) => ({ path: p, results: (lists[p] ?? []).map((h): RelatedHit => relatedHit(h)) })), missing: paths.filter((p) => !(p in lists)) };
			},
			listNotes: () => files,
			files: disk,
			clock,
			batchSize: 2,
			pause: () => Promise.resolve(),
			warn: (m) => warnings.push(m),
		});
		return { k, asked, disk, clock, warnings };
	}

	it("builds every list in batches and writes the parts they fall in", async () => {
		const files = ["A.md", "B.md", "C.md"].map((path) => ({ path, mtime: 1000 }));
		const { k, asked, disk } = keeper(files, { "A.md": ["B.md"], "B.md": ["A.md", "C.md"], "C.md": ["B.md"] });
		const report = await k.update();
		expect(asked).toEqual([["A.md", "B.md"], ["C.md"]]);
		const parts = [...new Set(["A.md", "B.md", "C.md"].map((p) => partFile(partOf(p))))].sort();
		expect(disk.parts()).toEqual(parts);
		expect(report).toMatchObject({ refreshed: 3, removed: 0, parts: parts.length });
		expect(readAll(disk).notes.get("B.md")?.hits.map((h) => h.path)).toEqual(["A.md", "C.md"]);
		// Each part holds only its own notes' lists.
		for (const name of disk.parts()) for (const p of decodeSnapshot(disk.files.get(name)!)!.notes.keys()) expect(partFile(partOf(p))).toBe(name);
	});

	it("after one edit fetches that note, the notes listing it and the notes it now lists; then nothing", async () => {
		const files = ["A.md", "B.md", "C.md", "D.md"].map((path) => ({ path, mtime: 1000 }));
		const lists = { "A.md": ["B.md"], "B.md": ["A.md"], "C.md": ["D.md"], "D.md": ["C.md"] };
		const { k, asked, disk } = keeper(files, lists);
		await k.update();
		asked.length = 0;
		files[0] = { path: "A.md", mtime: 50_000 };
		lists["A.md"] = ["C.md"]; // A was rewritten: now close to C, which lists D only
		await k.update();
		expect(asked.flat().sort()).toEqual(["A.md", "B.md", "C.md"]);
		asked.length = 0;
		disk.writes.length = 0;
		const again = await k.update();
		expect(asked).toEqual([]);
		expect(again).toMatchObject({ refreshed: 0, parts: 0 });
		expect(disk.writes).toEqual([]);
	});

	it("an update touching 3 notes rewrites only their parts", async () => {
		const files = Array.from({ length: 200 }, (_, i) => ({ path: `Notes/N${i}.md`, mtime: 1000 }));
		const lists: Record<string, string[]> = Object.fromEntries(files.map((f) => [f.path, []]));
		const { k, disk } = keeper(files, lists);
		await k.update();
		expect(disk.parts()).toHaveLength(PARTS);
		// Three notes in three different parts are edited; their lists now name each other.
		const picked: string[] = [];
		for (const f of files) if (picked.length < 3 && !picked.some((p) => partOf(p) === partOf(f.path))) picked.push(f.path);
		for (const path of picked) {
			files.find((f) => f.path === path)!.mtime = 90_000;
			lists[path] = picked.filter((p) => p !== path);
		}
		disk.writes.length = 0;
		const before = new Map(disk.parts().map((n) => [n, disk.files.get(n)]));
		const report = await k.update();
		expect(report).toMatchObject({ refreshed: 3, parts: 3 });
		expect(disk.writes.sort()).toEqual(picked.map((p) => partFile(partOf(p))).sort());
		for (const [name, text] of before) if (!disk.writes.includes(name)) expect(disk.files.get(name)).toBe(text);
		expect(readAll(disk).notes.get(picked[0]!)?.hits.map((h) => h.path)).toEqual(picked.slice(1));
	});

	it("drops notes the index does not hold and a deleted note's list", async () => {
		const files = ["A.md", "B.md", "Skipped.md"].map((path) => ({ path, mtime: 1000 }));
		const lists: Record<string, string[]> = { "A.md": ["B.md"], "B.md": ["A.md"] };
		const { k, disk } = keeper(files, lists);
		await k.update();
		expect([...k.snapshot.notes.keys()].sort()).toEqual(["A.md", "B.md"]);
		files.splice(1, 1);
		delete lists["B.md"];
		lists["A.md"] = [];
		const report = await k.update();
		expect(report?.removed).toBe(1);
		expect(k.snapshot.notes.get("A.md")?.hits).toEqual([]);
		expect([...readAll(disk).notes.keys()]).toEqual(["A.md"]);
	});

	it("a long build writes what it has every 20 batches, so a cut-short one keeps it", async () => {
		const files = Array.from({ length: 90 }, (_, i) => ({ path: `N${i}.md`, mtime: 1000 }));
		const disk = new MemoryFiles();
		const sizes: number[] = [];
		const write = disk.write.bind(disk);
		disk.write = async (name, text) => {
			await write(name, text);
			sizes.push(readAll(disk).notes.size);
		};
		const { k } = keeper(files, Object.fromEntries(files.map((f) => [f.path, []])), disk);
		await k.update(); // 45 batches of 2: checkpoints after batch 20 and 40, then the end
		expect(sizes).toContain(40);
		expect(sizes).toContain(80);
		expect(sizes.at(-1)).toBe(90);
	});

	it("starts from the parts written last time", async () => {
		const files = ["A.md", "B.md"].map((path) => ({ path, mtime: 1000 }));
		const first = keeper(files, { "A.md": ["B.md"], "B.md": ["A.md"] });
		await first.k.update();
		const { k, asked } = keeper(files, { "A.md": ["B.md"], "B.md": ["A.md"] }, first.disk);
		await k.update();
		expect(asked).toEqual([]);
	});

	it("reads an older plugin's single file, then the first write in parts replaces it", async () => {
		const disk = new MemoryFiles();
		disk.put(SNAPSHOT_FILE, encodeSnapshot(snap({ "A.md": { mtime: 1000, hits: ["B.md"] }, "B.md": { mtime: 1000, hits: ["A.md"] } })));
		const files = ["A.md", "B.md"].map((path) => ({ path, mtime: 1000 }));
		const { k, asked } = keeper(files, { "A.md": ["B.md"], "B.md": ["A.md"] }, disk);
		const report = await k.update();
		expect(asked).toEqual([]); // nothing changed since the old file
		expect(report?.parts).toBe(PARTS); // every part, so no list is left only in the old file
		expect(disk.removed).toEqual([SNAPSHOT_FILE]);
		expect(disk.files.has(SNAPSHOT_FILE)).toBe(false);
		expect(readAll(disk).notes.get("A.md")?.hits.map((h) => h.path)).toEqual(["B.md"]);
	});

	it("a corrupt part is skipped with a message, and written again", async () => {
		const files = Array.from({ length: 40 }, (_, i) => ({ path: `N${i}.md`, mtime: 1000 }));
		const lists: Record<string, string[]> = Object.fromEntries(files.map((f) => [f.path, []]));
		const first = keeper(files, lists);
		await first.k.update();
		const broken = partFile(partOf("N0.md"));
		first.disk.put(broken, "{ not json");
		const { k, asked, warnings, disk } = keeper(files, lists, first.disk);
		await k.update();
		expect(warnings).toEqual([expect.stringContaining(broken)]);
		expect(asked.flat().sort()).toEqual(files.map((f) => f.path).filter((p) => partFile(partOf(p)) === broken).sort());
		expect(decodeSnapshot(disk.files.get(broken)!)?.notes.has("N0.md")).toBe(true);
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

describe("the phone's reads", () => {
	async function written(lists: Record<string, string[]>): Promise<MemoryFiles> {
		const disk = new MemoryFiles();
		const clock = new ManualClock();
		const desk = new SnapshotKeeper({
			relatedMany: async (paths) => ({ notes: paths.map((p) => ({ path: p, results: (lists[p] ?? []).map((h) => relatedHit(h)) })), missing: [] }),
			listNotes: () => Object.keys(lists).map((path) => ({ path, mtime: 1000 })),
			files: disk,
			clock,
			pause: () => Promise.resolve(),
		});
		await desk.update();
		return disk;
	}
	const phone = (disk: MemoryFiles, warnings: string[] = []) =>
		new SnapshotKeeper({ relatedMany: async () => ({ notes: [], missing: [] }), listNotes: () => [], files: disk, clock: new ManualClock(), warn: (m) => warnings.push(m) });

	it("reads the open note's part only, once", async () => {
		const lists = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`N${i}.md`, [`N${(i + 1) % 100}.md`]]));
		const disk = await written(lists);
		disk.reads.length = 0;
		const k = phone(disk);
		expect(k.hasPartOf("N5.md")).toBe(false);
		expect(await k.loadPartOf("N5.md")).toBe(true);
		expect(disk.reads).toEqual([partFile(partOf("N5.md"))]);
		expect(lookup(k.snapshot, "N5.md", () => 1)?.hits.map((h) => h.path)).toEqual(["N6.md"]);
		expect(await k.loadPartOf("N5.md")).toBe(false);
		expect(disk.reads).toHaveLength(1);
		// Only that part's notes are held.
		expect([...k.snapshot.notes.keys()].every((p) => partOf(p) === partOf("N5.md"))).toBe(true);
	});

	it("reads again a part a sync replaced", async () => {
		const disk = await written({ "A.md": ["B.md"], "B.md": ["A.md"] });
		const k = phone(disk);
		await k.loadPartOf("A.md");
		expect(await k.reread()).toBe(false);
		const newer = snap({ "A.md": { hits: ["C.md"] } });
		disk.put(partFile(partOf("A.md")), encodeSnapshot(newer));
		expect(await k.reread()).toBe(true);
		expect(k.snapshot.notes.get("A.md")?.hits.map((h) => h.path)).toEqual(["C.md"]);
	});

	it("falls back to an older plugin's single file while the parts are not there", async () => {
		const disk = new MemoryFiles();
		disk.put(SNAPSHOT_FILE, encodeSnapshot(snap({ "A.md": { hits: ["B.md"] }, "B.md": { hits: ["A.md"] } })));
		const k = phone(disk);
		expect(await k.loadPartOf("A.md")).toBe(true);
		expect(k.snapshot.notes.get("A.md")?.hits.map((h) => h.path)).toEqual(["B.md"]);
		disk.reads.length = 0;
		await k.loadPartOf("B.md"); // the old file was read already
		expect(disk.reads).toEqual(partOf("A.md") === partOf("B.md") ? [] : [partFile(partOf("B.md"))]);
	});

	it("a corrupt part is skipped with a message, not fatal", async () => {
		const disk = new MemoryFiles();
		disk.put(partFile(partOf("A.md")), "\u0000garbage");
		const warnings: string[] = [];
		const k = phone(disk, warnings);
		expect(await k.loadPartOf("A.md")).toBe(false);
		expect(lookup(k.snapshot, "A.md", () => 1)).toBeNull();
		expect(warnings).toEqual([expect.stringMatching(/snapshot.+part-\d\d\.json could not be read; skipped/)]);
	});
});
