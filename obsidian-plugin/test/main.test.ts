import { App, FileSystemAdapter, setRequestUrl, Vault, type RequestUrlParam } from "obsidian";
import { afterEach, describe, expect, it, vi } from "vitest";
import manifest from "../manifest.json";
import VaultheatPlugin from "../src/main";
import { DEFAULT_SETTINGS } from "../src/settings";
import { VIEW_TYPE_RELATED } from "../src/views/context";
import { statusDoc } from "./helpers";
import { NOTES } from "./world";

interface Call {
	url: string;
	method: string;
	body: unknown;
}

function world() {
	document.body.innerHTML = "";
	const vault = new Vault(new FileSystemAdapter("/vault"));
	vault.seed(NOTES);
	const app = new App(document, vault);
	document.body.append(app.workspace.containerEl, app.statusBarEl, app.ribbonEl);
	const calls: Call[] = [];
	setRequestUrl(async (p: RequestUrlParam) => {
		const body = typeof p.body === "string" ? JSON.parse(p.body) : undefined;
		calls.push({ url: p.url, method: p.method ?? "GET", body });
		const path = new URL(p.url).pathname;
		const doc =
			path === "/v1/health"
				? { schema: "vaultheat.health.v1", status: "ok", version: "0.1.0", state: "ready" }
				: path === "/v1/status"
					? statusDoc()
					: { schema: "vaultheat.ack.v1", queued: 1 };
		return { status: 200, text: JSON.stringify(doc), headers: {}, json: doc, arrayBuffer: new ArrayBuffer(0) };
	});
	const plugin = new VaultheatPlugin(app as never, manifest as never);
	return { app, vault, calls, plugin };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** onload is async (settings, then the desktop half's dynamic import): wait until it is done. */
async function loaded(app: App): Promise<void> {
	await vi.waitFor(() => expect(app.workspace.listenerCount("quit")).toBe(1), { timeout: 3000, interval: 5 });
}

afterEach(() => setRequestUrl(null));

describe("plugin lifecycle", () => {
	it("registers stable commands without hotkeys, a view, a ribbon icon, a status bar and a settings tab", async () => {
		const { app, plugin } = world();
		plugin.load();
		await loaded(app);
		expect(Object.keys(app.commands.commands).sort()).toEqual(
			["open-related-notes", "focus-related-notes", "related-notes-for-selection", "semantic-search", "show-status", "start-sidecar", "stop-sidecar", "update-index", "rebuild-related-snapshot"].map((id) => `vaultheat:${id}`).sort(),
		);
		for (const cmd of Object.values(app.commands.commands)) {
			expect(cmd.hotkeys).toBeUndefined();
			expect(cmd.name).toMatch(/^[A-Z][a-z ]+$/);
		}
		expect(app.viewRegistry.has(VIEW_TYPE_RELATED)).toBe(true);
		expect(app.ribbonEl.querySelector('[aria-label="Open related notes"]')).not.toBeNull();
		expect(app.statusBarEl.querySelector(".vaultheat-statusbar")).not.toBeNull();
		expect(app.settingTabs).toHaveLength(1);
		plugin.unload();
	});

	it("connects when the layout is ready and shows it in the status bar", async () => {
		const { app, plugin, calls } = world();
		plugin.load();
		await loaded(app);
		expect(calls).toHaveLength(0);
		app.workspace.setLayoutReady();
		// poll rather than sleep a fixed time: a loaded CI machine can take longer than 20 ms
		await vi.waitFor(() => {
			expect(calls.map((c) => new URL(c.url).pathname).slice(0, 2)).toEqual(["/v1/health", "/v1/status"]);
			expect(app.statusBarEl.textContent).toContain("12 notes");
		}, { timeout: 3000, interval: 10 });
		plugin.unload();
	});

	it("reads the token from the discovery file", async () => {
		const { app, plugin, calls, vault } = world();
		(vault.adapter as FileSystemAdapter).hidden.set(".vaultheat/server.json", JSON.stringify({ url: "http://127.0.0.1:40001", token: "from-file" }));
		plugin.load();
		await loaded(app);
		app.workspace.setLayoutReady();
		await vi.waitFor(() => expect(calls[0]?.url).toBe("http://127.0.0.1:40001/v1/health"), { timeout: 3000, interval: 10 });
		plugin.unload();
	});

	it("forwards vault changes after layout-ready, batched within a second", async () => {
		const { app, plugin, calls, vault } = world();
		plugin.load();
		await loaded(app);
		await vault.create("Before layout.md", "x");
		app.workspace.setLayoutReady();
		await sleep(20);
		const file = vault.getFileByPath("Alpha.md")!;
		await vault.modify(file, "changed");
		await vault.modify(file, "changed again");
		await vault.create("New.md", "new");
		await vault.rename(vault.getFileByPath("Gamma.md")!, "Archive/Gamma.md");
		await vault.create("image.png", "");
		await vi.waitFor(() => expect(calls.some((c) => c.url.endsWith("/v1/notes/changed"))).toBe(true), { timeout: 3000, interval: 20 });
		await sleep(100); // a second batch would be a bug: give it the chance to show up
		const changed = calls.filter((c) => c.url.endsWith("/v1/notes/changed"));
		expect(changed).toHaveLength(1);
		expect(changed[0]?.body).toEqual({
			events: [
				{ type: "modify", path: "Alpha.md" },
				{ type: "create", path: "New.md" },
				{ type: "rename", path: "Archive/Gamma.md", old_path: "Gamma.md" },
			],
		});
		plugin.unload();
	});

	it("keeps settings valid and leaves the defaults alone", async () => {
		const { app, plugin } = world();
		app.pluginData.set("vaultheat", { resultCount: 500, debounceMs: "fast", excluded: ["A"] });
		plugin.load();
		await loaded(app);
		app.workspace.setLayoutReady();
		const tab = app.settingTabs[0]!;
		tab.display();
		const toggle = [...tab.containerEl.querySelectorAll(".setting-item")].find((r) => r.textContent?.includes("Unlinked only by default"))!;
		(toggle.querySelector(".checkbox-container") as HTMLElement).click();
		await sleep(0);
		expect(app.pluginData.get("vaultheat")).toMatchObject({ resultCount: 50, debounceMs: 500, excluded: ["A"], unlinkedOnlyDefault: true });
		expect(DEFAULT_SETTINGS.unlinkedOnlyDefault).toBe(false);
		expect(DEFAULT_SETTINGS.excluded).toEqual([]);
		plugin.unload();
	});

	it("opens the sidebar from the command, and unloading removes every listener and element", async () => {
		const { app, plugin } = world();
		plugin.load();
		await loaded(app);
		app.workspace.setLayoutReady();
		await sleep(10);
		app.commands.executeCommandById("vaultheat:open-related-notes");
		await vi.waitFor(() => expect(app.workspace.getLeavesOfType(VIEW_TYPE_RELATED)).toHaveLength(1), { timeout: 3000, interval: 10 });
		expect(app.vault.listenerCount("modify")).toBe(1);
		for (const leaf of app.workspace.getLeavesOfType(VIEW_TYPE_RELATED)) leaf.detach();
		plugin.unload();
		await sleep(0);
		for (const name of ["create", "modify", "delete", "rename"]) expect(app.vault.listenerCount(name)).toBe(0);
		for (const name of ["active-leaf-change", "file-open", "editor-change"]) expect(app.workspace.listenerCount(name)).toBe(0);
		expect(app.statusBarEl.children).toHaveLength(0);
		expect(app.ribbonEl.children).toHaveLength(0);
		expect(Object.keys(app.commands.commands)).toHaveLength(0);
		expect(plugin.pendingCleanups).toBe(0);
	});

	it("turning the plugin on opens the sidebar (where the setup card asks first), and saves nothing", async () => {
		const { app, plugin } = world();
		plugin.load();
		await loaded(app);
		plugin.onUserEnable();
		app.workspace.setLayoutReady();
		await vi.waitFor(() => expect(app.workspace.getLeavesOfType(VIEW_TYPE_RELATED)).toHaveLength(1), { timeout: 3000, interval: 10 });
		expect(app.pluginData.get("vaultheat")).toBeUndefined(); // nothing answered, nothing saved
		plugin.unload();
	});

	it("stops its sidecar on quit, the one moment Obsidian gives it (it does not call onunload)", async () => {
		const { app, plugin } = world();
		plugin.load();
		await loaded(app);
		expect(app.workspace.listenerCount("quit")).toBe(1);
		await app.workspace.quit(); // nothing was started: nothing to stop, and no error
		plugin.unload();
		expect(app.workspace.listenerCount("quit")).toBe(0);
	});

	it("takes settings changed on disk by a sync service (onExternalSettingsChange)", async () => {
		const { app, plugin } = world();
		plugin.load();
		await loaded(app);
		app.workspace.setLayoutReady();
		app.pluginData.set("vaultheat", { resultCount: 7, setupDone: true });
		await plugin.onExternalSettingsChange();
		const tab = app.settingTabs[0]!;
		tab.display();
		const slider = [...tab.containerEl.querySelectorAll(".setting-item")].find((r) => r.textContent?.includes("Result count"))!.querySelector("input")!;
		expect(slider.value).toBe("7");
		plugin.unload();
	});

	it("manifest.json matches what Obsidian's review asks for", () => {
		expect(manifest).toMatchObject({ id: "vaultheat", name: "Vaultheat", version: "0.1.0", author: "vaultheat developers", isDesktopOnly: false });
		expect(manifest.id).not.toMatch(/obsidian/);
	});
});
