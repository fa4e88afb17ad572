/**
 * The snapshot's size and its longest synchronous slice for 10,000 synthetic notes: paths like
 * "Area 3/Topic 41/Note about things 1234.md", ten related notes each drawn uniformly at random
 * (a worst case for the parts' path tables: real lists cluster by topic), a third with two via
 * notes. Printed, not asserted (the machine may be busy), but for the per-file size bound.
 */
import { describe, expect, it } from "vitest";
import type { RelatedHit } from "../../src/api/types";
import { encodeSnapshot, PARTS } from "../../src/state/snapshot";
import { SnapshotKeeper } from "../../src/state/snapshot-keeper";
import { ManualClock, MemoryFiles, relatedHit } from "../helpers";

const N = 10_000;

function random(seed: number): () => number {
	let s = seed >>> 0;
	return () => {
		s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
		return s / 2 ** 32;
	};
}

describe("the snapshot for 10,000 synthetic notes", () => {
	it("stays small per part, and the main thread is never held long", async () => {
		const rand = random(39);
		const paths = Array.from({ length: N }, (_, i) => `Area ${i % 12}/Topic ${i % 97}/Note about things ${i}.md`);
		const pick = (): string => paths[Math.floor(rand() * N)]!;
		const lists = new Map<string, RelatedHit[]>(
			paths.map((p) => [
				p,
				Array.from({ length: 10 }, (_, r) =>
					relatedHit(pick(), {
						relevance: 0.9 - r * 0.05,
						relevance_label: r < 3 ? "strong" : "good",
						link_heat: rand() < 0.33 ? { kind: "ra", heat: 0.2, top: 0.4, weight: 0.2, bonus: 0.1, via: [{ path: pick(), title: "x" }, { path: pick(), title: "y" }] } : null,
					}),
				),
			]),
		);
		const disk = new MemoryFiles();
		const slices: number[] = [];
		let last = performance.now();
		const keeper = new SnapshotKeeper({
			relatedMany: async (batch) => {
				// A request is a macrotask away, as over the network: the slice starts when it answers.
				slices.push(performance.now() - last);
				await new Promise((resolve) => setTimeout(resolve, 0));
				last = performance.now();
				return { notes: batch.map((p) => ({ path: p, results: lists.get(p)! })), missing: [] };
			},
			listNotes: () => paths.map((path) => ({ path, mtime: 1000 })),
			files: disk,
			clock: new ManualClock(),
			batchSize: 50,
			pause: async () => {
				slices.push(performance.now() - last);
				await new Promise((resolve) => setTimeout(resolve, 0));
				last = performance.now();
			},
		});
		const report = await keeper.update();
		slices.push(performance.now() - last);
		const sizes = disk.parts().map((n) => new TextEncoder().encode(disk.files.get(n)!).length);
		const total = sizes.reduce((a, b) => a + b, 0);
		const t0 = performance.now();
		const single = encodeSnapshot(keeper.snapshot);
		const singleMs = performance.now() - t0;
		console.log(
			`snapshot, ${N} synthetic notes: ${PARTS} parts, ${(total / 1e6).toFixed(2)} MB in all (largest part ${(Math.max(...sizes) / 1e3).toFixed(0)} KB); ` +
				`longest synchronous slice ${Math.max(...slices).toFixed(1)} ms over ${slices.length} slices; ` +
				`one file as before: ${(new TextEncoder().encode(single).length / 1e6).toFixed(2)} MB in one ${singleMs.toFixed(1)} ms stringify`,
		);
		expect(report).toMatchObject({ refreshed: N, parts: PARTS });
		expect(sizes).toHaveLength(PARTS);
		expect(slices.length).toBeGreaterThan(N / 50 + PARTS); // it yielded between batches, parts and chunks
		expect(Math.max(...sizes)).toBeLessThan(1_000_000); // far from a 5 MB per-file cap
	});
});
