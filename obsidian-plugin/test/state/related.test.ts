import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors";
import type { RelatedDoc, RelatedRequest } from "../../src/api/types";
import { compileExcludes } from "../../src/state/exclude";
import { buildRelatedRequest, MAX_TEXT_BYTES, RelatedController } from "../../src/state/related";
import { deferred, flush, ManualClock, relatedDoc, relatedHit } from "../helpers";

function setup(options: { top?: number; excluded?: string[] } = {}) {
	const clock = new ManualClock();
	const calls: { request: RelatedRequest; d: ReturnType<typeof deferred<RelatedDoc>> }[] = [];
	const excluded = compileExcludes(options.excluded ?? []);
	const controller = new RelatedController(
		{
			related: (request) => {
				const d = deferred<RelatedDoc>();
				calls.push({ request, d });
				return d.promise;
			},
			options: () => ({ top: options.top ?? 10, debounceMs: 500, excluding: (options.excluded ?? []).length > 0 }),
			isExcluded: () => excluded,
			clock,
		},
		false,
	);
	return { clock, calls, controller, state: () => controller.store.get() };
}

const note = (path: string, text: string | null = "hello", cursor: number | null = 0) => ({ path, title: path.replace(".md", ""), text, cursor });
/** The same note as the editor hands it over while typing: read only when asked. */
const typed = (path: string, text: string | null = "hello", cursor: number | null = 0) => ({ path, title: path.replace(".md", ""), read: () => ({ text, cursor }) });

describe("buildRelatedRequest", () => {
	it("sends the cursor as a UTF-8 byte offset", () => {
		// "é" is 2 bytes, "😀" is 4 bytes (2 UTF-16 units).
		const r = buildRelatedRequest({ path: "A.md", title: "A", text: "é😀x", cursor: 3 }, 10, false, 0);
		expect(r).toEqual({ path: "A.md", top: 10, text: "é😀x", cursor: 6 });
	});
	it("drops text that is too large and asks for extra results when excluding", () => {
		const big = "a".repeat(MAX_TEXT_BYTES + 1);
		expect(buildRelatedRequest({ path: "A.md", title: "A", text: big, cursor: 1 }, 10, true, 10)).toEqual({ path: "A.md", top: 20, unlinked_only: true });
	});
	it("caps top at 100", () => {
		expect(buildRelatedRequest(note("A.md", null, null), 95, false, 10).top).toBe(100);
	});
});

describe("RelatedController", () => {
	it("queries at once when following a note, and clears the previous note's rows", async () => {
		const { calls, controller, state } = setup();
		controller.follow(note("A.md"));
		expect(calls).toHaveLength(1);
		expect(state()).toMatchObject({ target: { path: "A.md", title: "A" }, updating: true, results: [] });
		calls[0]?.d.resolve(relatedDoc("A.md", [relatedHit("B.md")]));
		await flush();
		expect(state()).toMatchObject({ updating: false, tookMs: 8 });
		expect(state().results.map((h) => h.path)).toEqual(["B.md"]);
		controller.follow(note("C.md"));
		expect(state().results).toEqual([]);
		expect(state().target?.path).toBe("C.md");
	});

	it("keeps the answer's partial_space until another note's or an error", async () => {
		const { calls, controller, state } = setup();
		controller.follow(note("A.md"));
		expect(state().partialSpace).toBe(false);
		calls[0]?.d.resolve({ ...relatedDoc("A.md", [relatedHit("B.md", { space: "multilingual" })]), partial_space: true });
		await flush();
		expect(state().partialSpace).toBe(true);
		expect(state().results[0]?.space).toBe("multilingual");
		controller.follow(note("C.md"));
		expect(state().partialSpace).toBe(false);
		calls[1]?.d.resolve({ ...relatedDoc("C.md", [relatedHit("B.md")]), partial_space: true });
		await flush();
		expect(state().partialSpace).toBe(true);
		controller.refresh();
		calls[2]?.d.reject(new ApiError("http", "broken", 500, "internal"));
		await flush();
		expect(calls).toHaveLength(3);
		expect(state().partialSpace).toBe(false);
	});

	it("debounces typing and keeps the old rows visible while updating", async () => {
		const { clock, calls, controller, state } = setup();
		controller.follow(note("A.md", "one"));
		calls[0]?.d.resolve(relatedDoc("A.md", [relatedHit("B.md")]));
		await flush();
		controller.edited(typed("A.md", "one t", 5));
		controller.edited(typed("A.md", "one tw", 6));
		expect(state().updating).toBe(true);
		expect(state().results).toHaveLength(1);
		await clock.advance(499);
		expect(calls).toHaveLength(1);
		await clock.advance(1);
		expect(calls).toHaveLength(2);
		expect(calls[1]?.request).toMatchObject({ path: "A.md", text: "one tw", cursor: 6 });
		calls[1]?.d.resolve(relatedDoc("A.md", [relatedHit("C.md")]));
		await flush();
		expect(state().results.map((h) => h.path)).toEqual(["C.md"]);
		expect(state().updating).toBe(false);
	});

	it("ignores an answer for a note that is no longer followed", async () => {
		const { calls, controller, state } = setup();
		controller.follow(note("A.md"));
		controller.follow(note("B.md"));
		calls[0]?.d.resolve(relatedDoc("A.md", [relatedHit("X.md")]));
		await flush();
		expect(state().results).toEqual([]);
		calls[1]?.d.resolve(relatedDoc("B.md", [relatedHit("Y.md")]));
		await flush();
		expect(state().results.map((h) => h.path)).toEqual(["Y.md"]);
	});

	it("shows an older answer for the same note while a newer one is pending", async () => {
		const { clock, calls, controller, state } = setup();
		controller.follow(note("A.md", "a"));
		controller.edited(typed("A.md", "ab", 2));
		calls[0]?.d.resolve(relatedDoc("A.md", [relatedHit("Old.md")]));
		await flush();
		expect(state().results.map((h) => h.path)).toEqual(["Old.md"]);
		expect(state().updating).toBe(true);
		await clock.advance(500);
		calls[1]?.d.resolve(relatedDoc("A.md", [relatedHit("New.md")]));
		await flush();
		expect(state().results.map((h) => h.path)).toEqual(["New.md"]);
		expect(state().updating).toBe(false);
	});

	it("re-queries with unlinked_only when toggled", async () => {
		const { calls, controller, state } = setup();
		controller.follow(note("A.md"));
		controller.setUnlinkedOnly(true);
		controller.setUnlinkedOnly(true);
		expect(state().unlinkedOnly).toBe(true);
		calls[0]?.d.resolve(relatedDoc("A.md", [relatedHit("B.md")]));
		await flush();
		expect(calls.map((c) => c.request.unlinked_only)).toEqual([undefined, true]);
	});

	it("hides excluded paths and the note itself, and trims to top", async () => {
		const { calls, controller, state } = setup({ top: 2, excluded: ["Templates"] });
		controller.follow(note("A.md"));
		expect(calls[0]?.request.top).toBe(12);
		calls[0]?.d.resolve(relatedDoc("A.md", [relatedHit("Templates/T.md"), relatedHit("A.md"), relatedHit("B.md"), relatedHit("C.md"), relatedHit("D.md")]));
		await flush();
		expect(state().results.map((h) => h.path)).toEqual(["B.md", "C.md"]);
	});

	it("keeps the rows and records the error when a query fails", async () => {
		const { clock, calls, controller, state } = setup();
		controller.follow(note("A.md"));
		calls[0]?.d.resolve(relatedDoc("A.md", [relatedHit("B.md")]));
		await flush();
		controller.edited(typed("A.md", "x", 1));
		await clock.advance(500);
		calls[1]?.d.reject(new ApiError("unreachable", "down"));
		await flush();
		expect(state().error?.kind).toBe("unreachable");
		expect(state().results).toHaveLength(1);
		controller.refresh();
		calls[2]?.d.resolve(relatedDoc("A.md", []));
		await flush();
		expect(state().error).toBeNull();
	});

	it("builds the explain request from the query that produced the rows", async () => {
		const { calls, controller } = setup();
		expect(controller.explainRequest("B.md")).toBeNull();
		controller.follow(note("A.md", "héllo", 2));
		calls[0]?.d.resolve(relatedDoc("A.md", [relatedHit("B.md")]));
		await flush();
		expect(controller.explainRequest("B.md")).toEqual({ path: "A.md", text: "héllo", cursor: 3, target: "B.md" });
	});

	it("does not re-query when the same note is followed again unchanged", async () => {
		const { calls, controller } = setup();
		controller.follow(note("A.md"));
		calls[0]?.d.resolve(relatedDoc("A.md", [relatedHit("B.md")]));
		await flush();
		controller.follow(note("A.md"));
		expect(calls).toHaveLength(1);
	});

	it("follow(null) clears everything and drops the running answer", async () => {
		const { calls, controller, state } = setup();
		controller.follow(note("A.md"));
		controller.follow(null);
		calls[0]?.d.resolve(relatedDoc("A.md", [relatedHit("B.md")]));
		await flush();
		expect(state()).toMatchObject({ target: null, results: [], updating: false });
	});

	it("editing another note than the target switches to it at once", async () => {
		const { calls, controller, state } = setup();
		controller.follow(note("A.md"));
		controller.edited(typed("B.md"));
		expect(state().target?.path).toBe("B.md");
		calls[0]?.d.resolve(relatedDoc("A.md", [relatedHit("X.md")]));
		await flush();
		expect(calls.map((c) => c.request.path)).toEqual(["A.md", "B.md"]);
		expect(state().results).toEqual([]);
	});
});
