import { describe, expect, it } from "vitest";
import type { ChangeEvent } from "../../src/api/types";
import { ChangeQueue, coalesce, toChangeEvent } from "../../src/state/changes";
import { compileExcludes } from "../../src/state/exclude";
import { ManualClock } from "../helpers";

const c = (path: string): ChangeEvent => ({ type: "create", path });
const m = (path: string): ChangeEvent => ({ type: "modify", path });
const d = (path: string): ChangeEvent => ({ type: "delete", path });
const r = (oldPath: string, path: string): ChangeEvent => ({ type: "rename", path, old_path: oldPath });

describe("coalesce", () => {
	it.each<[string, ChangeEvent[], ChangeEvent[]]>([
		["repeated saves are one modify", [m("A.md"), m("A.md"), m("A.md")], [m("A.md")]],
		["create then edits is a create", [c("A.md"), m("A.md")], [c("A.md")]],
		["create then delete is nothing", [c("A.md"), m("A.md"), d("A.md")], []],
		["modify then delete is a delete", [m("A.md"), d("A.md")], [d("A.md")]],
		["delete then create is a modify", [d("A.md"), c("A.md")], [m("A.md")]],
		["rename then edit keeps the rename", [r("A.md", "B.md"), m("B.md")], [r("A.md", "B.md")]],
		["create then rename is a create of the new path", [c("A.md"), r("A.md", "B.md")], [c("B.md")]],
		["rename twice collapses", [r("A.md", "B.md"), r("B.md", "C.md")], [r("A.md", "C.md")]],
		["rename then delete deletes the old path", [r("A.md", "B.md"), d("B.md")], [d("A.md")]],
		["different paths keep their first-seen order", [m("B.md"), m("A.md"), m("B.md")], [m("B.md"), m("A.md")]],
	])("%s", (_n, input, want) => expect(coalesce(input)).toEqual(want));
});

describe("toChangeEvent", () => {
	const excluded = compileExcludes(["Templates"]);
	it.each<[string, ChangeEvent["type"], string, string | undefined, ChangeEvent | null]>([
		["a note", "modify", "A.md", undefined, m("A.md")],
		["not a note", "modify", "image.png", undefined, null],
		["a PDF is indexed too", "modify", "Docs/Manual.pdf", undefined, { type: "modify", path: "Docs/Manual.pdf" }],
		["a canvas is indexed too", "create", "Boards/Plan.canvas", undefined, { type: "create", path: "Boards/Plan.canvas" }],
		["an excluded note", "create", "Templates/T.md", undefined, null],
		["rename between notes", "rename", "B.md", "A.md", r("A.md", "B.md")],
		["rename into an excluded folder is a delete", "rename", "Templates/A.md", "A.md", d("A.md")],
		["rename out of an excluded folder is a create", "rename", "A.md", "Templates/A.md", c("A.md")],
		["rename to a non-note is a delete", "rename", "A.txt", "A.md", d("A.md")],
		["rename within excluded is nothing", "rename", "Templates/B.md", "Templates/A.md", null],
		["upper-case extension counts", "create", "A.MD", undefined, c("A.MD")],
	])("%s", (_n, type, path, oldPath, want) => expect(toChangeEvent(type, path, oldPath, excluded)).toEqual(want));
});

describe("ChangeQueue", () => {
	it("sends one coalesced batch 250 ms after the first event", async () => {
		const clock = new ManualClock();
		const sent: ChangeEvent[][] = [];
		const queue = new ChangeQueue(async (events) => void sent.push(events), clock);
		queue.push(m("A.md"));
		queue.push(null);
		await clock.advance(100);
		queue.push(m("A.md"));
		queue.push(c("B.md"));
		await clock.advance(149);
		expect(sent).toEqual([]);
		await clock.advance(1);
		expect(sent).toEqual([[m("A.md"), c("B.md")]]);
		queue.push(d("B.md"));
		await clock.advance(250);
		expect(sent).toHaveLength(2);
	});

	it("drops a failed batch and keeps working", async () => {
		const clock = new ManualClock();
		let fail = true;
		const sent: ChangeEvent[][] = [];
		const queue = new ChangeQueue(async (events) => {
			if (fail) throw new Error("offline");
			sent.push(events);
		}, clock);
		queue.push(m("A.md"));
		await clock.advance(250);
		fail = false;
		queue.push(m("B.md"));
		await clock.advance(250);
		expect(sent).toEqual([[m("B.md")]]);
	});

	it("dispose() cancels what is pending", async () => {
		const clock = new ManualClock();
		const sent: ChangeEvent[][] = [];
		const queue = new ChangeQueue(async (events) => void sent.push(events), clock);
		queue.push(m("A.md"));
		queue.dispose();
		queue.push(m("B.md"));
		await clock.advance(1000);
		expect(sent).toEqual([]);
		expect(clock.pending).toBe(0);
	});
});
