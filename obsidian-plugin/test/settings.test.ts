import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, loadSettings, parsePatternList, rerankFlag } from "../src/settings";

const snapshot = JSON.stringify(DEFAULT_SETTINGS);

describe("loadSettings", () => {
	it.each([
		["null (first run)", null],
		["not an object", "garbage"],
		["empty object", {}],
	])("gives the defaults for %s", (_n, raw) => {
		const s = loadSettings(raw);
		expect(s).toEqual(DEFAULT_SETTINGS);
		expect(s).not.toBe(DEFAULT_SETTINGS);
		expect(s.excluded).not.toBe(DEFAULT_SETTINGS.excluded);
	});

	it.each([
		["resultCount below range", { resultCount: 0 }, { resultCount: 1 }],
		["resultCount above range", { resultCount: 999 }, { resultCount: 50 }],
		["resultCount rounded", { resultCount: 7.6 }, { resultCount: 8 }],
		["resultCount wrong type", { resultCount: "12" }, { resultCount: 10 }],
		["debounce NaN", { debounceMs: Number.NaN }, { debounceMs: 500 }],
		["debounce too small", { debounceMs: 5 }, { debounceMs: 100 }],
		["rerank unknown", { rerank: "maybe" }, { rerank: "server" }],
		["rerank on", { rerank: "on" }, { rerank: "on" }],
		["token trimmed", { token: "  abc \n" }, { token: "abc" }],
		["empty command falls back", { command: "   " }, { command: "vaultheat" }],
		["autoStart wrong type (off by default: nothing starts before the user agrees)", { autoStart: "yes" }, { autoStart: false }],
		["threshold unknown", { threshold: "some" }, { threshold: "all" }],
		["threshold kept", { threshold: "strong" }, { threshold: "strong" }],
		["model preset", { model: "multilingual" }, { model: "multilingual" }],
		["model unknown", { model: "klingon" }, { model: "server" }],
		["index folder trimmed", { indexDir: " /idx " }, { indexDir: "/idx" }],
		["hidden suggestions filtered", { hiddenSuggestions: { "A.md": ["B.md", 3], "C.md": "x" } }, { hiddenSuggestions: { "A.md": ["B.md"] } }],
		["excluded cleaned", { excluded: [" Templates ", "", 3, "Archive/**"] }, { excluded: ["Templates", "Archive/**"] }],
		["excluded wrong type", { excluded: "Templates" }, { excluded: [] }],
		["the mobile snapshot is off by default", {}, { keepSnapshot: false, snapshotAsked: false, phoneSeen: 0 }],
		["an older version's data (it was on by default) loads with it off, not asked yet", { keepSnapshot: true }, { keepSnapshot: false, snapshotAsked: false }],
		["turned on by the user", { keepSnapshot: true, snapshotAsked: true }, { keepSnapshot: true, snapshotAsked: true }],
		["a phone's marker", { phoneSeen: 1_700_000_000_000.4 }, { phoneSeen: 1_700_000_000_000 }],
		["a bad phone marker", { phoneSeen: "yes" }, { phoneSeen: 0 }],
	])("%s", (_n, raw, want) => expect(loadSettings(raw)).toMatchObject(want));

	it("never mutates the defaults, even when the result is mutated", () => {
		const s = loadSettings({ excluded: ["A"] });
		s.excluded.push("B");
		const t = loadSettings(null);
		t.excluded.push("C");
		t.resultCount = 3;
		expect(JSON.stringify(DEFAULT_SETTINGS)).toBe(snapshot);
		expect(Object.isFrozen(DEFAULT_SETTINGS)).toBe(true);
		expect(() => (DEFAULT_SETTINGS.excluded as string[]).push("x")).toThrow();
	});

	it("round-trips what it saves", () => {
		const s = loadSettings({ serverUrl: "http://127.0.0.1:5", token: "t", autoStart: true, resultCount: 20, excluded: ["A"], rerank: "off" });
		expect(loadSettings(JSON.parse(JSON.stringify(s)))).toEqual(s);
	});
});

describe("parsePatternList and rerankFlag", () => {
	it("reads one pattern per line, skipping blanks and comments", () => {
		expect(parsePatternList("Templates\n\n  # note\r\nArchive/** \n")).toEqual(["Templates", "Archive/**"]);
	});
	it.each([
		["server", undefined],
		["on", true],
		["off", false],
	] as const)("%s → %s", (mode, want) => expect(rerankFlag(mode)).toBe(want));
});
