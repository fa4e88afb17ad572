/**
 * The composition root (main.ts) on a mobile platform stub: Platform says "mobile app", the
 * adapter is not a FileSystemAdapter, and every Node built-in the source asks `require` for is
 * recorded. On mobile none may load; the desktop run at the end is the
 * control that shows the recording works.
 */
import { App, DataAdapter, FileSystemAdapter, Platform, setRequestUrl, type RequestUrlParam, TFile, Vault } from "obsidian";
import Module from "node:module";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import manifest from "../manifest.json";
import VaultheatPlugin from "../src/main";
import { emptySnapshot, encodeSnapshot, entryOf, SNAPSHOT_FILE } from "../src/state/snapshot";
import { VIEW_TYPE_RELATED } from "../src/views/context";
import { relatedDoc, relatedHit, statusDoc } from "./helpers";
import { NOTES } from "./world";

// desktop.ts takes Node's modules from the host's CommonJS `require`: record what it asks for.
const loaded: string[] = [];
const moduleProto = (Module as unknown as { prototype: { require(this: { filename?: string }, id: string): unknown } }).prototype;
const realRequire = moduleProto.require;
moduleProto.require = function (this: { filename?: string }, id: string): unknown {
	if (/[\\/]src[\\/]/.test(this.filename ?? "")) loaded.push(id);
	return realRequire.call(this, id);
};
afterAll(() => {
	moduleProto.require = realRequire;
});

const SNAPSHOT_PATH = `.obsidian/plugins/vaultheat/${SNAPSHOT_FILE}`;
const MOBILE = { isDesktop: false, isDesktopApp: false, isMobile: true, isMobileApp: true, isPhone: true };
const saved = { ...Platform };
const platform = Platform as unknown as Record<string, boolean>;

interface Call {
	url: string;
	headers: Record<string, string>;
}

function world(adapter: DataAdapter) {
	document.body.innerHTML = "";
	const vault = new Vault(adapter);
	vault.seed(NOTES);
	const app = new App(document, vault);
	document.body.append(app.workspace.containerEl, app.statusBarEl, app.ribbonEl);
	const calls: Call[] = [];
	setRequestUrl(async (p: RequestUrlParam) => {
		calls.push({ url: p.url, headers: p.headers ?? {} });
		const path = new URL(p.url).pathname;
		const doc =
			path === "/v1/health"
				? { schema: "vaultheat.health.v1", status: "ok", version: "0.1.0", state: "ready" }
				: path === "/v1/status"
					? statusDoc()
					: path === "/v1/related"
						? relatedDoc("Alpha.md", [relatedHit("Gamma.md", { relevance: 0.6, relevance_label: "good" })])
						: { schema: "vaultheat.ack.v1", queued: 1 };
		return { status: 200, text: JSON.stringify(doc), headers: {}, json: doc, arrayBuffer: new ArrayBuffer(0) };
	});
	const plugin = new VaultheatPlugin(app as never, manifest as never);
	return { app, vault, calls, plugin };
}

/** A snapshot the desktop wrote: Alpha lists Beta (strong, 4 votes) and Gamma. */
function seedSnapshot(adapter: DataAdapter, vault: Vault, at: number): void {
	const s = emptySnapshot();
	s.updated = at;
	const alpha = vault.getFileByPath("Alpha.md")!;
	s.notes.set(
		"Alpha.md",
		entryOf(
			"Alpha.md",
			[
				relatedHit("Projects/Beta.md", { relevance: 0.81, relevance_label: "strong", link_status: "unlinked", votes: { count: 4, k: 20, weight: 2, share: 0.2, bonus: 0.4, voters: [] } }),
				relatedHit("Gamma.md", { relevance: 0.41, relevance_label: "weak", link_status: "linked" }),
			],
			alpha.stat.mtime,
			at,
			10,
		),
	);
	adapter.hidden.set(SNAPSHOT_PATH, encodeSnapshot(s));
}

async function openAlpha(app: App): Promise<HTMLElement> {
	await vi.waitFor(() => expect(app.commands.commands["vaultheat:open-related-notes"]).toBeDefined(), { timeout: 3000, interval: 10 });
	app.workspace.setLayoutReady();
	app.commands.executeCommandById("vaultheat:open-related-notes");
	await vi.waitFor(() => expect(app.workspace.getLeavesOfType(VIEW_TYPE_RELATED)).toHaveLength(1), { timeout: 3000, interval: 10 });
	await app.workspace.getLeaf(false).openFile(app.vault.getFileByPath("Alpha.md") as TFile);
	return app.workspace.getLeavesOfType(VIEW_TYPE_RELATED)[0]!.view.containerEl;
}

const text = (el: Element | null | undefined): string => (el?.textContent ?? "").replace(/\s+/g, " ").trim();

// Not cleared between tests: a Node module imported when main.ts itself loads (at the top of
// this file) must show up too. The desktop control runs last.
beforeEach(() => {
	Object.assign(platform, MOBILE);
});

afterEach(() => {
	Object.assign(platform, saved);
	setRequestUrl(null);
});

describe("on a phone (mobile platform stub)", () => {
	it("loads, shows a note's related notes from the snapshot with its time, and no Node module is loaded", async () => {
		const adapter = new DataAdapter();
		const { app, vault, plugin, calls } = world(adapter);
		const at = Date.now() - 60_000;
		for (const f of vault.getMarkdownFiles()) f.stat.mtime = at - 5000; // synced before the snapshot was made
		seedSnapshot(adapter, vault, at);
		// Gamma was edited on the phone after the snapshot was made.
		vault.getFileByPath("Gamma.md")!.stat.mtime = Date.now();
		plugin.load();
		const root = await openAlpha(app);
		await vi.waitFor(() => expect(root.querySelectorAll(".vaultheat-row")).toHaveLength(2), { timeout: 3000, interval: 10 });

		expect([...root.querySelectorAll(".vaultheat-row-title")].map(text)).toEqual(["Beta", "Gamma"]);
		expect(text(root.querySelector(".vaultheat-snapshot-banner"))).toMatch(/^From the snapshot, as of .+2\d{3}, \d\d:\d\d/);
		expect(text(root.querySelector(".vaultheat-snapshot-banner"))).toContain("1 listed note changed since.");
		expect(text(root.querySelector(".vaultheat-snapshot-banner"))).toContain("No server on this device");
		expect(text(root.querySelector('[data-path="Projects/Beta.md"]'))).toContain("Linked by 4 neighbours");
		expect(text(root.querySelector('[data-path="Gamma.md"] .vaultheat-row-changed'))).toBe("Changed since the snapshot");
		expect(root.querySelector('[data-path="Projects/Beta.md"] .vaultheat-row-changed')).toBeNull();

		expect(calls).toEqual([]); // no address set: nothing is sent anywhere
		expect(loaded).toEqual([]);
		expect(app.settingTabs).toHaveLength(1);
		plugin.unload();
	});

	it("takes the snapshot a sync replaced: read again when a note is opened and when sync changes the plugin's data", async () => {
		const adapter = new DataAdapter();
		const { app, vault, plugin } = world(adapter);
		const at = Date.now() - 60_000;
		for (const f of vault.getMarkdownFiles()) f.stat.mtime = at - 5000;
		seedSnapshot(adapter, vault, at);
		plugin.load();
		const root = await openAlpha(app);
		const titles = () => [...root.querySelectorAll(".vaultheat-row-title")].map(text);
		await vi.waitFor(() => expect(titles()).toEqual(["Beta", "Gamma"]), { timeout: 3000, interval: 10 });

		// The desktop's next snapshot arrives by sync: Alpha now lists Gamma only.
		const newer = (hits: string[], when: number): string => {
			const s = emptySnapshot();
			s.updated = when;
			s.notes.set("Alpha.md", entryOf("Alpha.md", hits.map((h) => relatedHit(h, { relevance: 0.7, relevance_label: "good" })), at - 5000, when, 10));
			return encodeSnapshot(s);
		};
		adapter.replace(SNAPSHOT_PATH, newer(["Gamma.md"], at + 1000), at + 1000);
		await app.workspace.getLeaf(false).openFile(vault.getFileByPath("Alpha.md") as TFile);
		await vi.waitFor(() => expect(titles()).toEqual(["Gamma"]), { timeout: 3000, interval: 10 });

		// Obsidian Sync changed data.json too (onExternalSettingsChange): the snapshot is read again.
		adapter.replace(SNAPSHOT_PATH, newer(["Projects/Beta.md"], at + 2000), at + 2000);
		await plugin.onExternalSettingsChange();
		await vi.waitFor(() => expect(titles()).toEqual(["Beta"]), { timeout: 3000, interval: 10 });
		plugin.unload();
	});

	it("writes once in data.json that a phone opened the vault (the desktop asks then), and never a snapshot", async () => {
		const adapter = new DataAdapter();
		const { app, vault, plugin } = world(adapter);
		seedSnapshot(adapter, vault, Date.now() - 60_000);
		plugin.load();
		await openAlpha(app);
		await vi.waitFor(() => expect((app.pluginData.get("vaultheat") as { phoneSeen?: number } | undefined)?.phoneSeen).toBeGreaterThan(0), { timeout: 3000, interval: 10 });
		const first = (app.pluginData.get("vaultheat") as { phoneSeen: number }).phoneSeen;
		expect([...adapter.hidden.keys()].filter((k) => k.includes("snapshot"))).toEqual([SNAPSHOT_PATH]);
		plugin.unload();
		plugin.load();
		await vi.waitFor(() => expect(app.commands.commands["vaultheat:open-related-notes"]).toBeDefined(), { timeout: 3000, interval: 10 });
		app.workspace.setLayoutReady();
		await vi.waitFor(() => expect((app.pluginData.get("vaultheat") as { phoneSeen: number }).phoneSeen).toBe(first), { timeout: 3000, interval: 10 });
		plugin.unload();
	});

	it("search without a server says what the phone can offer instead", async () => {
		const { app, plugin } = world(new DataAdapter());
		plugin.load();
		app.workspace.setLayoutReady();
		await vi.waitFor(() => expect(app.commands.commands["vaultheat:semantic-search"]).toBeDefined(), { timeout: 3000, interval: 10 });
		app.commands.executeCommandById("vaultheat:semantic-search");
		await vi.waitFor(() => expect(text(document.querySelector(".modal"))).toContain("No server for this device"), { timeout: 3000, interval: 10 });
		expect(text(document.querySelector(".modal"))).toContain("the related notes sidebar shows the snapshot");
		expect(loaded).toEqual([]);
		document.querySelector<HTMLElement>(".modal-close-button")?.click();
		plugin.unload();
	});

	it("a note the snapshot lacks says why and where to set a server", async () => {
		const { app, plugin } = world(new DataAdapter());
		plugin.load();
		const root = await openAlpha(app);
		await vi.waitFor(() => expect(text(root)).toContain("No server for this device"), { timeout: 3000, interval: 10 });
		expect(loaded).toEqual([]);
		plugin.unload();
	});

	it("with an address and token in settings, asks that server (not the discovery file's) and answers live", async () => {
		const adapter = new DataAdapter();
		const { app, vault, plugin, calls } = world(adapter);
		seedSnapshot(adapter, vault, Date.now() - 60_000);
		adapter.hidden.set(".vaultheat/server.json", JSON.stringify({ url: "http://127.0.0.1:40001", token: "desktop-token" }));
		app.pluginData.set("vaultheat", { serverUrl: "https://homebox.tailnet:51764", token: "remote-token", setupDone: true });
		plugin.load();
		const root = await openAlpha(app);
		await vi.waitFor(() => expect([...root.querySelectorAll(".vaultheat-row-title")].map(text)).toEqual(["Gamma"]), { timeout: 3000, interval: 10 });
		expect(root.querySelector(".vaultheat-snapshot-banner")).toBeNull();
		expect(new Set(calls.map((c) => new URL(c.url).origin))).toEqual(new Set(["https://homebox.tailnet:51764"]));
		expect(calls.every((c) => c.headers.Authorization === "Bearer remote-token")).toBe(true);
		expect(calls.map((c) => new URL(c.url).pathname)).toContain("/v1/related");
		expect(calls.map((c) => new URL(c.url).pathname)).not.toContain("/v1/related/batch"); // a phone never writes the snapshot
		expect(loaded).toEqual([]);
		plugin.unload();
	});
});

describe("on the desktop app (the control)", () => {
	it("in an emulated phone layout (app.emulateMobile) runs as a phone: no Node module is loaded", async () => {
		Object.assign(platform, saved, { isDesktop: false, isMobile: true });
		loaded.length = 0;
		const { app, plugin } = world(new FileSystemAdapter("/vault"));
		plugin.load();
		await vi.waitFor(() => expect(app.workspace.listenerCount("quit")).toBe(1), { timeout: 3000, interval: 5 });
		expect(loaded).toEqual([]);
		plugin.unload();
	});

	it("loads the Node half: the recording above would have seen it", async () => {
		Object.assign(platform, saved);
		const { plugin } = world(new FileSystemAdapter("/vault"));
		plugin.load();
		await vi.waitFor(() => expect(loaded).toEqual(expect.arrayContaining(["child_process", "fs", "os", "http", "https", "crypto"])), { timeout: 3000, interval: 10 });
		plugin.unload();
	});
});
