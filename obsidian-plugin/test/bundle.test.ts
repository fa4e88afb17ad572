/**
 * The shipped bundle on a phone: main.js is built the way esbuild.config.mjs builds it, then run
 * with a `require` that hands out the `obsidian` stub and records anything else. Obsidian mobile
 * has no Node, so the mobile run may require nothing but `obsidian`: a Node built-in bundled
 * into a path mobile executes (a top-level require, an eager import) fails here.
 */
import { builtinModules, createRequire } from "node:module";
import { resolve } from "node:path";
import * as esbuild from "esbuild";
import * as obsidian from "obsidian";
import { App, DataAdapter, FileSystemAdapter, Platform, type TFile, Vault } from "obsidian";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import manifest from "../manifest.json";
import { VIEW_TYPE_RELATED } from "../src/views/context";
import { NOTES } from "./world";

// vitest runs from the plugin folder (npm test, npx vitest); import.meta.url is not a file URL
// under happy-dom.
const root = resolve(process.cwd());
let code = "";

beforeAll(async () => {
	const out = await esbuild.build({
		absWorkingDir: root,
		entryPoints: ["src/main.ts"],
		bundle: true,
		external: ["obsidian", "electron", "@codemirror/*", "@lezer/*", ...builtinModules, ...builtinModules.map((m) => `node:${m}`)],
		format: "cjs",
		target: "es2021",
		write: false,
		logLevel: "silent",
	});
	code = out.outputFiles[0]!.text;
}, 60000);

const saved = { ...Platform };
const platform = Platform as unknown as Record<string, boolean>;
afterEach(() => Object.assign(platform, saved));

/** Runs main.js; `nodeRequire` answers for everything but obsidian (null: throw, as on a phone). */
function runBundle(nodeRequire: NodeJS.Require | null): { Plugin: new (app: unknown, manifest: unknown) => obsidian.Plugin; required: string[] } {
	const required: string[] = [];
	const req = (name: string): unknown => {
		if (name === "obsidian") return obsidian;
		required.push(name);
		if (!nodeRequire) throw new Error(`Cannot find module '${name}' (no Node on mobile)`);
		return nodeRequire(name);
	};
	const module = { exports: {} as Record<string, unknown> };
	new Function("module", "exports", "require", code)(module, module.exports, req);
	return { Plugin: module.exports.default as never, required };
}

describe("the bundle (main.js)", () => {
	it("loads Node modules only by require (Obsidian's loader is CommonJS: no import() of a module)", () => {
		expect(code).not.toMatch(/\bimport\(\s*["'`]/);
		expect(code).toMatch(/require\("child_process"\)/);
	});

	it("on a phone requires nothing but obsidian, and the sidebar opens", async () => {
		Object.assign(platform, { isDesktop: false, isDesktopApp: false, isMobile: true, isMobileApp: true, isPhone: true });
		const { Plugin, required } = runBundle(null);
		document.body.innerHTML = "";
		const vault = new Vault(new DataAdapter());
		vault.seed(NOTES);
		const app = new App(document, vault);
		document.body.append(app.workspace.containerEl);
		const plugin = new Plugin(app, manifest);
		plugin.load();
		await vi.waitFor(() => expect(app.commands.commands["vaultheat:open-related-notes"]).toBeDefined(), { timeout: 3000, interval: 10 });
		app.workspace.setLayoutReady();
		app.commands.executeCommandById("vaultheat:open-related-notes");
		await vi.waitFor(() => expect(app.workspace.getLeavesOfType(VIEW_TYPE_RELATED)).toHaveLength(1), { timeout: 3000, interval: 10 });
		await app.workspace.getLeaf(false).openFile(vault.getFileByPath("Alpha.md") as TFile);
		const view = app.workspace.getLeavesOfType(VIEW_TYPE_RELATED)[0]!.view.containerEl;
		await vi.waitFor(() => expect(view.textContent).toContain("No server for this device"), { timeout: 3000, interval: 10 });
		expect(required).toEqual([]);
		plugin.unload();
	});

	it("on the desktop requires the Node half, and no module beyond the usual ones (the control)", async () => {
		// The built-ins Electron always has and the e2e page provides; `process` is a global there.
		const allowed = new Set(["child_process", "crypto", "fs", "http", "https", "os"]);
		const node = createRequire(resolve(root, "package.json"));
		const only = ((name: string) => {
			if (!allowed.has(name)) throw new Error(`Cannot find module '${name}'`);
			return node(name);
		}) as NodeJS.Require;
		const { Plugin, required } = runBundle(only);
		const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
		const vault = new Vault(new FileSystemAdapter("/vault"));
		const app = new App(document, vault);
		const plugin = new Plugin(app, manifest);
		plugin.load();
		await vi.waitFor(() => expect(app.commands.commands["vaultheat:start-sidecar"]).toBeDefined(), { timeout: 3000, interval: 10 });
		expect(required).toContain("child_process");
		expect(required.filter((m) => !allowed.has(m))).toEqual([]);
		expect(errors).not.toHaveBeenCalled(); // the desktop half loaded (no fallback to phone mode)
		errors.mockRestore();
		plugin.unload();
	});
});
