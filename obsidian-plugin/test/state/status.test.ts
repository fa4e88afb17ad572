import { describe, expect, it } from "vitest";
import {
	type AppStatus,
	applyServerEvent,
	formatEta,
	INITIAL_STATUS,
	parseServerEvent,
	phaseWords,
	progressFraction,
	spaceWords,
	stateWords,
	statusBarText,
} from "../../src/state/status";
import { statusDoc } from "../helpers";

const online = (index: Partial<AppStatus["index"]> = {}, phase: AppStatus["connection"]["phase"] = "online"): AppStatus => ({
	...INITIAL_STATUS,
	connection: { ...INITIAL_STATUS.connection, phase },
	index: { ...INITIAL_STATUS.index, ...index },
});

describe("applyServerEvent", () => {
	it("follows an index pass: state → progress → note_indexed → ready", () => {
		let index = INITIAL_STATUS.index;
		index = applyServerEvent(index, { name: "state", data: statusDoc({ state: "stale", notes: 10 }) });
		expect(index.status?.state).toBe("stale");
		index = applyServerEvent(index, { name: "progress", data: { stage: "embed", done: 3, total: 12, rate: 4, eta_s: 2 } });
		expect(index.status?.state).toBe("indexing");
		expect(index.progress?.done).toBe(3);
		index = applyServerEvent(index, { name: "note_indexed", data: { path: "A.md" } });
		expect(index.lastIndexedPath).toBe("A.md");
		index = applyServerEvent(index, { name: "ready", data: { notes: 12, chunks: 90 } });
		expect(index).toMatchObject({ progress: null, revision: 1, status: { state: "ready", notes: 12, chunks: 90, progress: null } });
	});

	it("records errors and clears them on ready", () => {
		let index = applyServerEvent(INITIAL_STATUS.index, { name: "error", data: { code: "provider", message: "model failed" } });
		expect(index.lastError).toEqual({ code: "provider", message: "model failed" });
		index = applyServerEvent(index, { name: "ready", data: { notes: 1, chunks: 1 } });
		expect(index.lastError).toBeNull();
	});

	it("takes progress and last_error from a state document", () => {
		const p = { stage: "scan", done: 1, total: 2, rate: null, eta_s: null };
		const index = applyServerEvent(INITIAL_STATUS.index, { name: "state", data: statusDoc({ state: "indexing", progress: p, last_error: "boom" }) });
		expect(index.progress).toEqual(p);
		expect(index.lastError?.message).toBe("boom");
	});
});

describe("parseServerEvent", () => {
	it.each([
		["known event", "ready", '{"notes":1,"chunks":2}', { name: "ready", data: { notes: 1, chunks: 2 } }],
		["unknown name", "hello", "{}", null],
		["bad JSON", "ready", "{", null],
		["not an object", "ready", "3", null],
	])("%s", (_n, name, data, want) => expect(parseServerEvent(name, data)).toEqual(want));
});

describe("statusBarText", () => {
	it.each([
		["connecting", online({}, "connecting"), "Connecting…", "busy"],
		["starting", online({}, "starting"), "Starting sidecar…", "busy"],
		["offline", online({}, "offline"), "Offline", "error"],
		["unauthorized", online({}, "unauthorized"), "Token refused", "error"],
		["forbidden", online({}, "forbidden"), "Connection refused", "error"],
		["incompatible", online({}, "incompatible"), "Version mismatch", "error"],
		["online, no status yet", online(), "Connected", "ok"],
		["ready", online({ status: statusDoc({ notes: 1234 }) }), "1,234 notes", "ok"],
		["one note", online({ status: statusDoc({ notes: 1 }) }), "1 note", "ok"],
		["stale", online({ status: statusDoc({ state: "stale", notes: 3 }) }), "3 notes (out of date)", "warn"],
		["empty", online({ status: statusDoc({ state: "empty", notes: 0 }) }), "No index yet", "warn"],
		["paused", online({ status: statusDoc({ paused: true }) }), "Indexing paused", "warn"],
		["indexing with counts", online({ status: statusDoc({ state: "indexing" }), progress: { stage: "embed", done: 45, total: 120, rate: 1, eta_s: 3 } }), "Indexing 45/120", "busy"],
		["indexing without counts", online({ status: statusDoc({ state: "indexing" }) }), "Indexing…", "busy"],
		["meaning phase", online({ status: statusDoc({ state: "indexing" }), progress: { stage: "meaning", done: 41, total: 100, rate: 2, eta_s: 30 } }), "Words ready · meaning 41%", "busy"],
		["words only after a stopped run", online({ status: statusDoc({ state: "incomplete", notes: 3, phases: { words: { state: "done" }, meaning: { state: "interrupted", done: 41, total: 100, percent: 41, eta_s: null } } }) }), "3 notes (words only, meaning 41%)", "warn"],
	])("%s", (_n, status, text, tone) => expect(statusBarText(status)).toEqual({ text, tone }));

	it("names a missing sidecar", () => {
		const s = online({}, "offline");
		expect(statusBarText({ ...s, sidecar: { ...s.sidecar, phase: "missing" } }).text).toBe("Sidecar not installed");
	});
});

describe("phaseWords", () => {
	it("says both phases while meaning runs, nothing once it is done", () => {
		const running = { words: { state: "done" as const }, meaning: { state: "running" as const, done: 1234, total: 3000, percent: 41.1, eta_s: 120 } };
		expect(phaseWords(running)).toBe(
			"Words: done (every note is searchable by its words). Meaning: 41% (1,234 of 3,000 passages), about 2 min left",
		);
		expect(phaseWords({ ...running, meaning: { ...running.meaning, state: "done" } })).toBe("");
		expect(phaseWords(undefined)).toBe("");
	});
	it("adds the phases to the tooltip's state words", () => {
		const doc = statusDoc({ state: "indexing", state_detail: "an index run is in progress", phases: { words: { state: "done" }, meaning: { state: "running", done: 1, total: 4, percent: 25, eta_s: null } } });
		expect(stateWords(doc)).toBe(
			"Indexing: an index run is in progress. Words: done (every note is searchable by its words). Meaning: 25% (1 of 4 passages)",
		);
	});
});

describe("spaceWords", () => {
	it("says how far the second pass is, nothing while the space is empty", () => {
		const space = (state: "empty" | "filling" | "done", vectors: number) => statusDoc({ chunks: 3400, spaces: { multilingual: { state, vectors } } });
		expect(spaceWords(space("filling", 1200))).toBe("1,200 of 3,400 passages, filling");
		expect(spaceWords(space("done", 3400))).toBe("3,400 of 3,400 passages");
		expect(spaceWords(space("empty", 0))).toBe("");
		expect(spaceWords(statusDoc({}))).toBe("");
	});
});

describe("formatEta and progressFraction", () => {
	it.each([
		[null, ""],
		[-1, ""],
		[0.2, "1 s"],
		[44.6, "45 s"],
		[150, "3 min"],
		[7200, "2.0 h"],
	])("formatEta(%s) = %s", (s, want) => expect(formatEta(s)).toBe(want));
	it.each([
		[null, null],
		[{ stage: "x", done: 1, total: 0, rate: null, eta_s: null }, null],
		[{ stage: "x", done: 1, total: 4, rate: null, eta_s: null }, 0.25],
		[{ stage: "x", done: 9, total: 4, rate: null, eta_s: null }, 1],
	])("progressFraction %#", (p, want) => expect(progressFraction(p)).toBe(want));
});
