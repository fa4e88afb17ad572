import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors";
import { backoffDelay, RECONNECT, STARTUP } from "../../src/state/backoff";
import { diagnoseQueryError, diagnoseStatus, INSTALL_COMMAND } from "../../src/state/diagnosis";
import { compileExcludes } from "../../src/state/exclude";
import { contributions, contributionTotal, edgeLabel, scoreSentence, stageLabel } from "../../src/state/explain";
import { type AppStatus, INITIAL_STATUS } from "../../src/state/status";
import { basename, folderOf, highlightParts, queryTerms, toSnippet, utf8Length, utf8Offset } from "../../src/state/text";
import { explainDoc, statusDoc } from "../helpers";

describe("compileExcludes", () => {
	it.each<[string[], string, boolean]>([
		[["Templates"], "Templates/Daily.md", true],
		[["Templates/"], "Templates/Sub/Daily.md", true],
		[["Templates"], "TemplatesOld/x.md", false],
		[["/Archive"], "Archive/x.md", true],
		[["*.excalidraw.md"], "Drawing.excalidraw.md", true],
		[["*.excalidraw.md"], "Folder/Drawing.excalidraw.md", false],
		[["**/*.excalidraw.md"], "Folder/Deep/Drawing.excalidraw.md", true],
		[["**/*.excalidraw.md"], "Drawing.excalidraw.md", true],
		[["Work/**/drafts/*"], "Work/a/b/drafts/x.md", true],
		[["Work/**/drafts/*"], "Work/drafts/x.md", true],
		[["Note?.md"], "Note1.md", true],
		[["Note?.md"], "Note12.md", false],
		[["a+b (1).md"], "a+b (1).md", true],
		[[], "Anything.md", false],
		[["  "], "Anything.md", false],
	])("%j excludes %s: %s", (patterns, path, want) => expect(compileExcludes(patterns)(path)).toBe(want));
});

describe("utf8Offset", () => {
	const samples = ["plain ascii", "héllo wörld", "日本語のノート", "emoji 😀 and 👍🏽 here", "mixed é😀日a", "lone \ud800 surrogate"];
	it.each(samples)("matches TextEncoder at every offset of %j", (text) => {
		for (let i = 0; i <= text.length; i++) {
			// Never split a surrogate pair: TextEncoder would encode half of it as U+FFFD.
			const code = text.charCodeAt(i - 1);
			if (code >= 0xd800 && code <= 0xdbff && i < text.length) continue;
			expect(utf8Offset(text, i)).toBe(new TextEncoder().encode(text.slice(0, i)).length);
		}
		expect(utf8Length(text)).toBe(utf8Offset(text, text.length));
	});
	it("clamps out-of-range offsets", () => {
		expect(utf8Offset("abc", -5)).toBe(0);
		expect(utf8Offset("abc", 99)).toBe(3);
	});
});

describe("toSnippet", () => {
	it.each([
		["frontmatter and the leading heading", "---\ntags: [a]\n---\n# Title\nBody text", "Body text"],
		["a heading alone stays", "## Only a heading", "Only a heading"],
		["CRLF frontmatter and a BOM", "\uFEFF---\r\ntitle: x\r\n---\r\n\r\n# Water\r\n\r\nCoffee is water.", "Coffee is water."],
		["inner heading marks", "Intro\n## Next\nMore", "Intro Next More"],
		["callouts and quotes", "> [!warning] Phytophthora\n> Brown patches", "Phytophthora Brown patches"],
		["wikilinks keep their alias or target", "See [[Other note|the other]] and [[Plain#Head]].", "See the other and Plain."],
		["markdown links keep their text", "Read [the docs](https://x.y) now", "Read the docs now"],
		["bullets and tasks", "- [ ] task one\n- item\n1. first", "task one item first"],
		["emphasis and code", "**bold** and ==mark== and `code`", "bold and mark and code"],
	])("%s", (_n, text, want) => expect(toSnippet(text)).toBe(want));
	it("cuts at a word and adds an ellipsis", () => {
		const s = toSnippet("word ".repeat(100), 30);
		expect(s.endsWith("…")).toBe(true);
		expect(s.length).toBeLessThanOrEqual(31);
		expect(s).not.toMatch(/wor…$/);
	});
});

describe("small text helpers", () => {
	it.each([
		["Folder/Sub/Note.md", "Folder/Sub", "Note"],
		["Note.md", "", "Note"],
		["a/b.MD", "a", "b"],
	])("%s", (path, folder, name) => {
		expect(folderOf(path)).toBe(folder);
		expect(basename(path)).toBe(name);
	});
	it("extracts query terms", () => expect(queryTerms("How to install the Install kit, ok?")).toEqual(["how", "install", "the", "kit"]));
	it("highlights whole-word prefixes only", () => {
		expect(highlightParts("Installing reinstall install", ["install"])).toEqual([
			{ text: "Installing", match: true },
			{ text: " reinstall ", match: false },
			{ text: "install", match: true },
		]);
		expect(highlightParts("no terms", [])).toEqual([{ text: "no terms", match: false }]);
		// Terms are regex-escaped, so punctuation in a term matches literally.
		expect(highlightParts("a (b) c", ["(b"])).toEqual([
			{ text: "a ", match: false },
			{ text: "(b", match: true },
			{ text: ") c", match: false },
		]);
	});
});

describe("backoffDelay", () => {
	it.each([
		[RECONNECT, 0, 0, 1000],
		[RECONNECT, 1, 0, 2000],
		[RECONNECT, 4, 0, 16000],
		[RECONNECT, 5, 0, 30000],
		[RECONNECT, 50, 0, 30000],
		[RECONNECT, 0, 0.5, 1050],
		[STARTUP, 0, 0.9, 250],
		[STARTUP, 10, 0, 2000],
	])("%#", (policy, attempt, random, want) => expect(backoffDelay(policy, attempt, random)).toBe(want));
});

describe("explain in words", () => {
	it("contributions add up to the final score", () => {
		const doc = explainDoc();
		const items = contributions(doc);
		expect(items.map((c) => c.component)).toEqual(["vector", "lexical", "heat", "fusion", "rerank", "title", "note", "page", "pointer"]);
		expect(items[3]).toMatchObject({ value: null, normalized: null });
		expect(items[4]).toMatchObject({ value: null, normalized: null });
		expect(items[5]).toMatchObject({ value: null, normalized: null });
		expect(contributionTotal(items)).toBeCloseTo(doc.components.final, 10);
	});
	it("a note-name match reads as its own part", () => {
		const doc = explainDoc({
			components: {
				raw: { vector: 0.4, lexical: 0, heat: 0, fusion: null, rerank: null, title: 1, note: null, page: null, pointer: null },
				normalized: { vector: 0.5, lexical: 0, heat: 0, fusion: null, rerank: null, title: 1, note: null, page: null, pointer: null },
				weights: { vector: 0.7, lexical: 0.04, heat: 0, fusion: 0, rerank: 0, title: 0.26, note: 0, page: 0, pointer: 0 },
				final: 0.61,
			},
		});
		expect(contributions(doc).find((c) => c.component === "title")?.value).toBeCloseTo(0.26, 10);
		expect(scoreSentence(doc)).toContain("named the note (0.26)");
	});
	it.each([
		["dominant component", explainDoc(), "Mostly: similar meaning (0.72 of 0.77), then linked from a match (0.05)."],
		[
			"no dominant component",
			explainDoc({
				components: {
					raw: { vector: 0.5, lexical: 0.5, heat: 0, fusion: null, rerank: null, title: null, note: null, page: null, pointer: null },
					normalized: { vector: 0.5, lexical: 0.5, heat: 0, fusion: null, rerank: null, title: null, note: null, page: null, pointer: null },
					weights: { vector: 0.5, lexical: 0.5, heat: 0.1, fusion: 0, rerank: 0, title: 0, note: 0, page: 0, pointer: 0 },
					final: 0.5,
				},
			}),
			"Largest part: similar meaning (0.25 of 0.50), then matched your words (0.25).",
		],
		[
			"nothing",
			explainDoc({ components: { raw: { vector: null, lexical: null, heat: null, fusion: null, rerank: null, title: null, note: null, page: null, pointer: null }, normalized: { vector: null, lexical: null, heat: null, fusion: null, rerank: null, title: null, note: null, page: null, pointer: null }, weights: { vector: 1, lexical: 1, heat: 1, fusion: 1, rerank: 1, title: 1, note: 1, page: 1, pointer: 1 }, final: 0 } }),
			"No component added to the score.",
		],
	])("%s", (_n, doc, want) => expect(scoreSentence(doc)).toBe(want));
	it.each([
		["link", "links to"],
		["backlink", "is linked from"],
		["similar", "has a similar passage in"],
		["tag", "shares a tag with"],
		["co_citation", "co citation"],
	])("edge %s", (edge, want) => expect(edgeLabel(edge)).toBe(want));
	it.each([
		["vector", "Meaning match"],
		["lexical", "Keyword match"],
		["graph_seed", "Graph seed"],
	])("stage %s", (stage, want) => expect(stageLabel(stage)).toBe(want));
});

const status = (phase: AppStatus["connection"]["phase"], patch: Partial<AppStatus> = {}): AppStatus => ({
	...INITIAL_STATUS,
	...patch,
	connection: { ...INITIAL_STATUS.connection, phase, url: "http://127.0.0.1:51764", ...patch.connection },
});

describe("diagnoseStatus", () => {
	it.each<[string, AppStatus, boolean, string, string[], string | undefined]>([
		["offline, can spawn", status("offline"), true, "The sidecar is not running", ["start-sidecar", "retry"], 'vaultheat serve --vault "/v" --port 0'],
		["offline, cannot spawn", status("offline"), false, "The sidecar is not running", ["retry"], 'vaultheat serve --vault "/v" --port 0'],
		["sidecar missing", status("offline", { sidecar: { ...INITIAL_STATUS.sidecar, phase: "missing", commandLine: "vaultheat serve" } }), true, "The vaultheat sidecar is not installed", ["open-settings", "retry"], INSTALL_COMMAND],
		["sidecar exited", status("offline", { sidecar: { ...INITIAL_STATUS.sidecar, phase: "exited", exitCode: 2, output: ["a", "Error: model missing"] } }), true, "The sidecar stopped", ["start-sidecar", "show-status"], undefined],
		["unauthorized", status("unauthorized"), true, "The sidecar refused the token", ["open-settings", "retry"], undefined],
		["forbidden", status("forbidden"), true, "The sidecar refused the connection", ["open-settings", "retry"], undefined],
		["incompatible", status("incompatible"), true, "Plugin and sidecar versions do not match", ["retry"], undefined],
		["connecting", status("connecting"), true, "Connecting to vaultheat…", [], undefined],
		["starting", status("starting"), true, "Starting the sidecar…", [], undefined],
		["empty index", status("online", { index: { ...INITIAL_STATUS.index, status: statusDoc({ state: "empty" }) } }), true, "No index yet", ["build-index"], undefined],
		["paused", status("online", { index: { ...INITIAL_STATUS.index, status: statusDoc({ state: "stale", paused: true }) } }), true, "Indexing is paused", ["resume-index"], undefined],
	])("%s", (_n, s, canSpawn, title, actions, command) => {
		const d = diagnoseStatus(s, "/v", canSpawn);
		expect(d?.title).toBe(title);
		expect(d?.actions).toEqual(actions);
		expect(d?.command).toBe(command);
	});
	it("is null when online with a ready index", () => {
		expect(diagnoseStatus(status("online", { index: { ...INITIAL_STATUS.index, status: statusDoc() } }), "/v", true)).toBeNull();
	});
	it("quotes the sidecar's last words", () => {
		const d = diagnoseStatus(status("offline", { sidecar: { ...INITIAL_STATUS.sidecar, phase: "exited", exitCode: 2, output: ["Error: model missing"] } }), "/v", true);
		expect(d?.detail).toContain("Error: model missing");
	});
	it("tells where the refused token came from", () => {
		const fromSettings = status("unauthorized", { connection: { ...INITIAL_STATUS.connection, phase: "unauthorized", tokenSource: "settings" } });
		expect(diagnoseStatus(fromSettings, "/v", true)?.detail).toContain("token in settings");
	});
});

describe("diagnoseQueryError", () => {
	const online = status("online", { index: { ...INITIAL_STATUS.index, status: statusDoc() } });
	it.each<[string, ApiError, string, string[]]>([
		["unreachable", new ApiError("unreachable", "refused"), "The sidecar is not running", ["start-sidecar", "retry"]],
		["slow", new ApiError("timeout", "took too long"), "The sidecar is slow to answer", ["retry", "show-status"]],
		["unauthorized", new ApiError("http", "no", 401, "unauthorized"), "The sidecar refused the token", ["open-settings", "retry"]],
		["forbidden", new ApiError("http", "no", 403, "forbidden"), "The sidecar refused the connection", ["open-settings", "retry"]],
		["index missing", new ApiError("http", "no", 409, "index_missing"), "No index yet", ["build-index"]],
		["mismatch", new ApiError("http", "no", 409, "index_mismatch"), "The index needs a rebuild", ["rebuild-index"]],
		["locked", new ApiError("http", "no", 409, "index_locked"), "The index is busy", ["retry"]],
		["corrupt", new ApiError("http", "no", 500, "index_corrupt"), "The index is damaged", ["rebuild-index"]],
		["changed", new ApiError("http", "no", 503, "index_changed"), "The index was rebuilt", ["retry"]],
		["model missing", new ApiError("http", "no model", 500, "model_missing"), "The embedding model is missing", ["show-status"]],
		["provider", new ApiError("http", "gpu", 502, "provider"), "The embedding provider failed", ["retry", "show-status"]],
		["too large", new ApiError("http", "big", 413, "too_large"), "This note is too large to send", ["retry"]],
		["not found", new ApiError("http", "nf", 404, "not_found"), "Not in the index yet", ["retry"]],
		["protocol", new ApiError("protocol", "v2"), "Plugin and sidecar versions do not match", ["retry"]],
		["other", new ApiError("http", "odd", 400, "bad_request"), "Something went wrong", ["retry", "show-status"]],
	])("%s", (_n, error, title, actions) => {
		const d = diagnoseQueryError(error, online, "/v", true);
		expect(d.title).toBe(title);
		expect(d.actions).toEqual(actions);
	});
	it("shows progress when the index is being built", () => {
		const p = { stage: "embed", done: 4, total: 10, rate: 2, eta_s: 3 };
		const indexing = status("online", { index: { ...INITIAL_STATUS.index, status: statusDoc({ state: "indexing", progress: p }), progress: p } });
		const d = diagnoseQueryError(new ApiError("http", "no", 409, "index_missing"), indexing, "/v", true);
		expect(d).toMatchObject({ title: "Indexing your vault…", progress: p, tone: "busy" });
	});
});
