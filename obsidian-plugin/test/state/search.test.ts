import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors";
import type { SearchDoc, SearchRequest } from "../../src/api/types";
import { compileExcludes } from "../../src/state/exclude";
import { describeFilters, parseSearchInput } from "../../src/state/filters";
import { buildSearchRequest, SearchController } from "../../src/state/search";
import { deferred, ManualClock, searchDoc, searchHit } from "../helpers";

describe("parseSearchInput", () => {
	it.each([
		["plain words", "how to install", { query: "how to install" }],
		["tag", "install tag:setup", { query: "install", tag: "setup" }],
		["tag with hash", "tag:#setup install", { query: "install", tag: "setup" }],
		["path", "path:Work/Meetings notes", { query: "notes", folder: "Work/Meetings" }],
		["folder alias with slashes", "folder:/Work/ notes", { query: "notes", folder: "Work" }],
		["quoted path", 'path:"My notes" budget', { query: "budget", folder: "My notes" }],
		["unterminated quote", 'budget path:"My notes', { query: "budget", folder: "My notes" }],
		["property", "prop:status=done tasks", { query: "tasks", property: { status: "done" } }],
		["last tag wins", "tag:a tag:b x", { query: "x", tag: "b" }],
		["empty filter is ignored", "tag: x", { query: "x" }],
		["a word containing a colon stays", "ratio 3:4", { query: "ratio 3:4" }],
		["case-insensitive keys", "TAG:Foo x", { query: "x", tag: "Foo" }],
	])("%s", (_n, input, want) => expect(parseSearchInput(input)).toEqual(want));

	it("describes the filters for the hint line", () => {
		expect(describeFilters(parseSearchInput('tag:x path:"A B" prop:k=v q'))).toBe("in A B/, tagged #x, k = v");
		expect(describeFilters(parseSearchInput("q"))).toBe("");
	});
});

describe("buildSearchRequest", () => {
	it.each([
		["server rerank default is omitted", undefined, { query: "q", top: 10 }],
		["rerank on", true, { query: "q", top: 10, rerank: true }],
		["rerank off", false, { query: "q", top: 10, rerank: false }],
	])("%s", (_n, rerank, want) => expect(buildSearchRequest({ query: "q" }, 10, rerank, 0)).toEqual(want));
	it("passes the filters", () => {
		expect(buildSearchRequest({ query: "q", folder: "F", tag: "t", property: { a: "b" } }, 5, undefined, 10)).toEqual({
			query: "q",
			top: 15,
			folder: "F",
			tag: "t",
			property: { a: "b" },
		});
	});
});

function setup(excluded: string[] = [], threshold: "all" | "good" | "strong" = "all") {
	const clock = new ManualClock();
	const calls: { request: SearchRequest; d: ReturnType<typeof deferred<SearchDoc>> }[] = [];
	const filter = compileExcludes(excluded);
	const controller = new SearchController({
		search: (request) => {
			const d = deferred<SearchDoc>();
			calls.push({ request, d });
			return d.promise;
		},
		options: () => ({ top: 3, debounceMs: 250, rerank: undefined, excluding: excluded.length > 0, threshold }),
		isExcluded: () => filter,
		clock,
	});
	return { clock, calls, controller };
}

describe("SearchController", () => {
	it("answers every pending call with the newest query's results", async () => {
		const { clock, calls, controller } = setup();
		const p1 = controller.query("ins");
		await clock.advance(100);
		const p2 = controller.query("install tag:setup");
		await clock.advance(250);
		expect(calls).toHaveLength(1);
		expect(calls[0]?.request).toEqual({ query: "install", tag: "setup", top: 9 });
		calls[0]?.d.resolve(searchDoc("install", [searchHit("A.md"), searchHit("B.md")]));
		const [r1, r2] = await Promise.all([p1, p2]);
		expect(r1.map((g) => g.hit.path)).toEqual(["A.md", "B.md"]);
		expect(r2).toEqual(r1);
		expect(controller.store.get()).toMatchObject({ loading: false, tookMs: 12 });
	});

	it("keeps the answer's partial_space until the next query", async () => {
		const { clock, calls, controller } = setup();
		expect(controller.store.get().partialSpace).toBe(false);
		const p1 = controller.query("hallo welt");
		await clock.advance(250);
		calls[0]?.d.resolve({ ...searchDoc("hallo welt", [searchHit("A.md")]), partial_space: true });
		await p1;
		expect(controller.store.get().partialSpace).toBe(true);
		const p2 = controller.query("hallo");
		expect(controller.store.get().partialSpace).toBe(false);
		await clock.advance(250);
		calls[1]?.d.resolve(searchDoc("hallo", [searchHit("A.md")]));
		await p2;
		expect(controller.store.get().partialSpace).toBe(false);
	});

	it("answers an input shorter than two letters at once, without a request", async () => {
		const { calls, controller } = setup();
		await expect(controller.query(" a ")).resolves.toEqual([]);
		await expect(controller.query("tag:x")).resolves.toEqual([]);
		expect(calls).toHaveLength(0);
	});

	it("resolves with [] and keeps the error when the search fails", async () => {
		const { clock, calls, controller } = setup();
		const p = controller.query("hello");
		await clock.advance(250);
		calls[0]?.d.reject(new ApiError("http", "No index yet", 409, "index_missing"));
		await expect(p).resolves.toEqual([]);
		expect(controller.store.get().error?.code).toBe("index_missing");
	});

	it("drops excluded paths and keeps top after filtering", async () => {
		const { clock, calls, controller } = setup(["Archive/**"]);
		const p = controller.query("hello");
		await clock.advance(250);
		expect(calls[0]?.request.top).toBe(19);
		calls[0]?.d.resolve(searchDoc("hello", ["Archive/x.md", "A.md", "Archive/y/z.md", "B.md", "C.md", "D.md"].map((p) => searchHit(p))));
		expect((await p).map((g) => g.hit.path)).toEqual(["A.md", "B.md", "C.md"]);
	});

	it("groups passages by note: one row per note, the others as `more`, top counted in notes", async () => {
		const { clock, calls, controller } = setup();
		const p = controller.query("hello");
		await clock.advance(250);
		const hits = ["A.md", "B.md", "A.md", "C.md", "A.md", "D.md"].map((path, i) => ({ ...searchHit(path), chunk_id: i }));
		calls[0]?.d.resolve(searchDoc("hello", hits));
		const groups = await p;
		expect(groups.map((g) => g.hit.path)).toEqual(["A.md", "B.md", "C.md"]);
		expect(groups[0]?.hit.chunk_id).toBe(0);
		expect(groups[0]?.more.map((h) => h.chunk_id)).toEqual([2, 4]);
		expect(new Set(groups.map((g) => g.hit.path)).size).toBe(groups.length);
	});

	it("hides weak matches under the threshold and counts them", async () => {
		const { clock, calls, controller } = setup([], "good");
		const p = controller.query("hello");
		await clock.advance(250);
		const hits = [
			{ ...searchHit("A.md"), relevance: 0.81, relevance_label: "strong" as const },
			{ ...searchHit("B.md"), relevance: 0.2, relevance_label: "weak" as const },
			{ ...searchHit("C.md"), relevance: 0.5, relevance_label: "good" as const },
		];
		calls[0]?.d.resolve(searchDoc("hello", hits));
		expect((await p).map((g) => g.hit.path)).toEqual(["A.md", "C.md"]);
		expect(controller.store.get().hiddenWeak).toBe(1);
	});

	it("dispose() settles pending calls", async () => {
		const { controller } = setup();
		const p = controller.query("pending");
		controller.dispose();
		await expect(p).resolves.toEqual([]);
	});
});
