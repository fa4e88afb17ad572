import { describe, expect, it } from "vitest";
import { discoveryFileIn } from "../../src/api/discovery";
import type { StatusDoc, Votes } from "../../src/api/types";
import { sidecarExcludes } from "../../src/settings";
import { candidateCommands, configSetArgv, detectCommand, venvCommand } from "../../src/sidecar";
import { groupByNote, morePassagesText } from "../../src/state/group";
import { keyHelpSentence, rowAction } from "../../src/state/keys";
import { hiddenNote, passesThreshold, shownScore } from "../../src/state/relevance";
import { stateWords } from "../../src/state/status";
import { toSnippet } from "../../src/state/text";
import { votesArithmetic, votesLine, votesSentence } from "../../src/state/votes";
import { searchHit, statusDoc } from "../helpers";

const key = (k: string, mods: Partial<Record<"ctrlKey" | "metaKey" | "altKey" | "shiftKey" | "isComposing", boolean>> = {}) => ({
	key: k,
	ctrlKey: false,
	metaKey: false,
	altKey: false,
	shiftKey: false,
	...mods,
});

describe("one key map for search and sidebar", () => {
	it.each([
		["Enter opens", key("Enter"), false, "open"],
		["Ctrl+Enter opens a new tab", key("Enter", { ctrlKey: true }), false, "open-tab"],
		["Cmd+Enter on macOS opens a new tab", key("Enter", { metaKey: true }), true, "open-tab"],
		["Ctrl+Enter on macOS is not ours (Cmd is the modifier there)", key("Enter", { ctrlKey: true }), true, null],
		["Ctrl+Alt+Enter opens to the right", key("Enter", { ctrlKey: true, altKey: true }), false, "open-split"],
		["Alt+Enter inserts a link", key("Enter", { altKey: true }), false, "insert-link"],
		["Ctrl+Shift+Enter explains", key("Enter", { ctrlKey: true, shiftKey: true }), false, "explain"],
		["Shift+Enter is Quick switcher's (create a note): not ours", key("Enter", { shiftKey: true }), false, null],
		["Enter while an IME composes is not ours", key("Enter", { isComposing: true }), false, null],
		["other keys are not ours", key("a"), false, null],
	] as const)("%s", (_n, evt, mac, want) => expect(rowAction(evt, mac)).toBe(want));
	it("says them in words", () => {
		expect(keyHelpSentence(false)).toBe("Enter opens, Ctrl+Enter opens in a new tab, Ctrl+Alt+Enter opens to the right, Alt+Enter inserts a link, Ctrl+Shift+Enter explains");
	});
});

describe("honest relevance", () => {
	it("shows the absolute relevance and its label, not the relative score", () => {
		const s = shownScore({ score: 1.02, relevance: 0.31, relevance_label: "weak" });
		expect(s).toMatchObject({ value: 0.31, text: "0.31", label: "weak", absolute: true });
		expect(s.words).toContain("Weak match");
	});
	it("falls back to the relative score on a server without relevance, and says so", () => {
		const s = shownScore({ score: 1.02 });
		expect(s).toMatchObject({ value: 1, text: "1.02", label: null, absolute: false });
		expect(s.words).toContain("relative to the best result");
	});
	it.each([
		["all shows weak", "weak", "all", true],
		["good hides weak", "weak", "good", false],
		["good keeps good", "good", "good", true],
		["strong hides good", "good", "strong", false],
		["strong keeps strong", "strong", "strong", true],
	] as const)("%s", (_n, label, threshold, want) => expect(passesThreshold({ score: 1, relevance_label: label }, threshold)).toBe(want));
	it("never hides an unlabelled hit (older server)", () => expect(passesThreshold({ score: 0.1 }, "strong")).toBe(true));
	it("counts hidden matches", () => {
		expect(hiddenNote(0)).toBe("");
		expect(hiddenNote(1)).toBe("1 weak match hidden");
		expect(hiddenNote(3)).toBe("3 weak matches hidden");
	});
});

describe("search results grouped by note", () => {
	it("keeps rank order, lists each note once, folds the rest in", () => {
		const hits = ["A.md", "B.md", "A.md", "A.md", "C.md"].map((p, i) => ({ ...searchHit(p), chunk_id: i }));
		const groups = groupByNote(hits);
		expect(groups.map((g) => [g.hit.path, g.hit.chunk_id, g.more.map((h) => h.chunk_id)])).toEqual([
			["A.md", 0, [2, 3]],
			["B.md", 1, []],
			["C.md", 4, []],
		]);
		expect(morePassagesText(groups[0]!)).toBe("+2 more passages");
		expect(morePassagesText({ hit: hits[0]!, more: [hits[2]!] })).toBe("+1 more passage");
		expect(morePassagesText(groups[1]!)).toBe("");
	});
});

const votes: Votes = {
	count: 3,
	k: 20,
	weight: 2,
	share: 0.25,
	bonus: 0.5,
	voters: [
		{ path: "Views.md", title: "Views", score: 0.84 },
		{ path: "Bases syntax.md", title: "Bases syntax", score: 0.82 },
		{ path: "Formulas.md", title: "Formulas", score: 0.34 },
	],
};

describe("link votes in words", () => {
	it("a row line", () => {
		expect(votesLine(votes)).toBe("Linked by 3 neighbours");
		expect(votesLine({ ...votes, count: 1 })).toBe("Linked by 1 neighbour");
		expect(votesLine(null)).toBe("");
		expect(votesLine(undefined)).toBe("");
	});
	it("the explain sentence names the voters with their scores", () => {
		expect(votesSentence(votes)).toBe("Linked from 3 of your 20 closest notes: Views (0.84), Bases syntax (0.82), Formulas (0.34).");
		expect(votesSentence(votes, 1)).toBe("Linked from 3 of your 20 closest notes: Views (0.84), and 2 more.");
	});
	it("the arithmetic recomputes the bonus from the voters", () => {
		// Σ voters = 2.00; share 0.25 ⇒ Σ top-k = 8.00; × 2 = 0.5.
		expect(votesArithmetic(votes)).toBe("share 2.00 / 8.00 = 0.250 × weight 2 = +0.500");
	});
});

describe("snippets without code fences or raw markup", () => {
	it.each([
		["fenced code dropped", "Use this:\n```python\nprint('x')\n```\nand done.", "Use this: and done."],
		["a passage that is only code keeps its code", "```sh\nnpm ci\n```", "npm ci"],
		["html tags and comments", "A <span class=\"x\">red</span> word<!-- hidden --> %%secret%% here.", "A red word here."],
		["block ids and footnotes", "A claim.[^1] More ^block-1\nNext line.", "A claim. More Next line."],
		["tables", "| a | b |\n|---|---|\n| 1 | 2 |", "a · b 1 · 2"],
		["math blocks", "Before $$x^2$$ after.", "Before after."],
	])("%s", (_n, text, want) => expect(toSnippet(text)).toBe(want));
});

describe("finding the sidecar", () => {
	it("lists the usual install paths, PATH first", () => {
		const c = candidateCommands("vaultheat", { PATH: "/usr/bin:/opt/x/bin" }, "linux", "/home/u");
		expect(c.slice(0, 3)).toEqual(["/usr/bin/vaultheat", "/opt/x/bin/vaultheat", "/home/u/.local/bin/vaultheat"]);
		expect(c).toContain("/home/u/.local/share/pipx/venvs/vaultheat/bin/vaultheat");
	});
	it("knows Windows' and macOS's per-user install folders", () => {
		const env = { Path: "C:\\Py\\Scripts", APPDATA: "C:\\Users\\u\\AppData\\Roaming", LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" };
		const w = candidateCommands("vaultheat", env, "win32", "C:\\Users\\u");
		expect(w[0]).toBe("C:\\Py\\Scripts\\vaultheat.exe");
		expect(w).toContain("C:\\Users\\u\\.local\\bin\\vaultheat.exe");
		expect(w).toContain("C:\\Users\\u\\pipx\\venvs\\vaultheat\\Scripts\\vaultheat.exe");
		expect(w).toContain("C:\\Users\\u\\AppData\\Local\\pipx\\venvs\\vaultheat\\Scripts\\vaultheat.exe");
		expect(w).toContain("C:\\Users\\u\\AppData\\Roaming\\Python\\Python312\\Scripts\\vaultheat.exe");
		expect(w).toContain("C:\\Users\\u\\AppData\\Roaming\\uv\\tools\\vaultheat\\Scripts\\vaultheat.exe");
		expect(w.every((p) => !p.includes("/"))).toBe(true);
		const m = candidateCommands("vaultheat", { PATH: "", PIPX_HOME: "/opt/px" }, "darwin", "/Users/u");
		expect(m).toContain("/Users/u/Library/Python/3.11/bin/vaultheat");
		expect(m).toContain("/opt/homebrew/bin/vaultheat");
		expect(m).toContain("/Users/u/.local/pipx/venvs/vaultheat/bin/vaultheat");
		expect(m).toContain("/opt/px/venvs/vaultheat/bin/vaultheat");
		expect(candidateCommands("vaultheat", { PATH: "" }, "linux", "/home/u").some((p) => p.includes("Library"))).toBe(false);
	});
	it("tries an explicit path first", () => {
		expect(candidateCommands("/srv/vh/.venv/bin/vaultheat", { PATH: "" }, "linux", "")[0]).toBe("/srv/vh/.venv/bin/vaultheat");
	});
	it("picks the first that exists", () => {
		expect(detectCommand(["/a", "/b", "/c"], (p) => p !== "/a")).toBe("/b");
		expect(detectCommand(["/a"], () => false)).toBeNull();
		expect(
			detectCommand(["/a", "/b"], (p) => {
				if (p === "/a") throw new Error("EACCES");
				return true;
			}),
		).toBe("/b");
	});
	it("turns a checkout or .venv folder into its vaultheat", () => {
		expect(venvCommand("/src/vaultheat", "linux")).toBe("/src/vaultheat/.venv/bin/vaultheat");
		expect(venvCommand("/src/vaultheat/.venv/", "linux")).toBe("/src/vaultheat/.venv/bin/vaultheat");
		expect(venvCommand("C:\\vh", "win32")).toBe("C:\\vh\\.venv\\Scripts\\vaultheat.exe");
	});
	it("sets the model with `config set` for the same index", () => {
		expect(configSetArgv({ command: "vaultheat", pythonPath: "", vaultPath: "/v", port: null, indexDir: "/idx" }, "embeddings.model", "multilingual")).toEqual([
			"vaultheat", "config", "set", "embeddings.model", "multilingual", "--vault", "/v", "--index-dir", "/idx",
		]);
	});
});

describe("exclusions as the sidecar's globs", () => {
	it("anchors folders at the vault root and passes globs as written", () => {
		expect(sidecarExcludes(["Templates", "Archive/", "/Daily/", "**/drafts/*.md", "Templates/", " "])).toEqual([
			"Templates/**",
			"Archive/**",
			"Daily/**",
			"**/drafts/*.md",
		]);
	});
	it("finds server.json in an index folder outside the vault", () => {
		expect(discoveryFileIn("/home/u/idx/")).toBe("/home/u/idx/server.json");
		expect(discoveryFileIn("C:\\idx")).toBe("C:\\idx\\server.json");
	});
});

describe("status states in plain words", () => {
	const doc = (patch: Partial<StatusDoc>): StatusDoc => ({ ...statusDoc(), ...patch });
	it.each([
		["ready", doc({ state: "ready" }), "Ready: every note is indexed"],
		["incomplete with the server's reason", doc({ state: "incomplete", state_detail: "736 of 6,571 notes indexed; 6,463 graph tasks pending" }), "Incomplete: 736 of 6,571 notes indexed; 6,463 graph tasks pending"],
		["stale", doc({ state: "stale" }), "Out of date: notes changed since the last index"],
		["paused while indexing", doc({ state: "indexing", paused: true }), "Indexing (paused)"],
	])("%s", (_n, d, want) => expect(stateWords(d)).toBe(want));
});

describe("explain components a document leaves out", () => {
	it("count as not used, never as undefined", async () => {
		const { contributions } = await import("../../src/state/explain");
		const { explainDoc } = await import("../helpers");
		const doc = explainDoc();
		const partial = { ...doc, components: { ...doc.components, raw: { vector: 0.7, lexical: 0, heat: 0.016 }, normalized: { vector: 0.9, lexical: 0, heat: 0.5 } } } as unknown as typeof doc;
		const rerank = contributions(partial).find((c) => c.component === "rerank");
		expect(rerank).toMatchObject({ raw: null, normalized: null, value: null });
	});
});
