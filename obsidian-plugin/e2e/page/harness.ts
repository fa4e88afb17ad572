/**
 * The e2e page: an Obsidian-shaped window built from the stub, into which run-e2e.mjs loads the
 * built main.js the way Obsidian does (CommonJS, with `require` answering "obsidian" and Node
 * built-ins). requestUrl and the stub vault go through the harness server: requests to the
 * sidecar via its Origin-less proxy (like Obsidian's requestUrl), file writes to the tmp vault.
 */
import * as obsidian from "../../test/stubs/obsidian";
import { childProcess, crypto, fs, http, knownHashes, os } from "./node-shims";

interface BootOptions {
	files: Record<string, string>;
	hidden: Record<string, string>;
	basePath: string;
	manifest: obsidian.PluginManifest;
	theme: "dark" | "light";
	/** sha256 hex by input, computed in Node (the page has no synchronous sha256). */
	hashes?: Record<string, string>;
}

interface PluginLike {
	load(): void;
	unload(): void;
}

async function proxyRequest(p: obsidian.RequestUrlParam): Promise<obsidian.RequestUrlResponse> {
	const headers: Record<string, string> = { ...(p.headers ?? {}), "x-vh-url": p.url };
	if (p.contentType) headers["content-type"] = p.contentType;
	const res = await fetch("/__proxy", { method: p.method ?? "GET", headers, body: p.body });
	const text = await res.text();
	if (res.status === 599) throw new Error(text);
	let json: unknown = null;
	try {
		json = JSON.parse(text);
	} catch {
		json = null;
	}
	const out: Record<string, string> = {};
	res.headers.forEach((v, k) => (out[k] = v));
	if (p.throw !== false && res.status >= 400) throw new Error(`Request failed, status ${res.status}`);
	return { status: res.status, headers: out, text, json, arrayBuffer: new ArrayBuffer(0) };
}

function layout(app: obsidian.App): void {
	const body = document.body;
	body.classList.add("app-container");
	const main = document.createElement("div");
	main.className = "horizontal-main-container";
	main.append(app.ribbonEl, app.workspace.containerEl);
	body.append(main, app.statusBarEl);
}

const vh = {
	app: null as obsidian.App | null,
	plugin: null as PluginLike | null,
	errors: [] as string[],

	boot(options: BootOptions): void {
		document.body.classList.add(options.theme === "dark" ? "theme-dark" : "theme-light");
		const adapter = new obsidian.FileSystemAdapter(options.basePath);
		const vault = new obsidian.Vault(adapter);
		vault.seed(options.files);
		for (const [path, data] of Object.entries(options.hidden)) adapter.hidden.set(path, data);
		for (const [input, hex] of Object.entries(options.hashes ?? {})) knownHashes.set(input, hex);
		vault.persist = async (op) => {
			const res = await fetch("/__fs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(op) });
			if (!res.ok) throw new Error(`fs ${op.op} ${op.path}: ${await res.text()}`);
		};
		const app = new obsidian.App(document, vault);
		layout(app);
		obsidian.setRequestUrl(proxyRequest);
		this.app = app;
		window.addEventListener("error", (e) => this.errors.push(String(e.message)));
		window.addEventListener("unhandledrejection", (e) => this.errors.push(String((e.reason as Error)?.stack ?? e.reason)));
	},

	/** Loads main.js as Obsidian does and runs the plugin's onload, then lays out the workspace. */
	async loadPlugin(code: string, manifest: obsidian.PluginManifest): Promise<void> {
		const app = this.app!;
		const modules: Record<string, unknown> = { obsidian, http, https: http, child_process: childProcess, crypto, fs, os };
		const require = (name: string): unknown => {
			const mod = modules[name.replace(/^node:/, "")];
			if (!mod) throw new Error(`Cannot find module '${name}'`);
			return mod;
		};
		const module = { exports: {} as Record<string, unknown> };
		// eslint-disable-next-line @typescript-eslint/no-implied-eval -- this is how Obsidian loads plugins
		const factory = new Function("require", "module", "exports", `${code}\n//# sourceURL=plugin:vaultheat`);
		factory(require, module, module.exports);
		const Plugin = (module.exports.default ?? module.exports) as new (app: obsidian.App, manifest: obsidian.PluginManifest) => PluginLike;
		const plugin = new Plugin(app, manifest);
		this.plugin = plugin;
		plugin.load();
		await new Promise((r) => setTimeout(r, 0));
		app.workspace.setLayoutReady();
	},

	async openNote(path: string, newLeaf = false): Promise<void> {
		const app = this.app!;
		const file = app.vault.getFileByPath(path);
		if (!file) throw new Error(`no note ${path}`);
		await app.workspace.getLeaf(newLeaf).openFile(file);
	},

	activeFile(): string | null {
		return this.app!.workspace.getActiveFile()?.path ?? null;
	},

	cursorLine(): number | null {
		const view = this.app!.workspace.getMostRecentLeaf()?.view;
		return view instanceof obsidian.MarkdownView ? view.editor.getCursor().line : null;
	},

	/** Plugin data as data.json would hold it, before loadPlugin. */
	setPluginData(data: unknown): void {
		this.app!.pluginData.set("vaultheat", data);
	},

	/** Changes settings as the settings tab does. */
	async saveSettings(patch: Record<string, unknown>): Promise<void> {
		await (this.plugin as unknown as { saveSettings(p: Record<string, unknown>): Promise<void> }).saveSettings(patch);
	},

	/** Obsidian's context menu, shown most recently: its item titles, or click one. */
	menuTitles(): string[] {
		return obsidian.Menu.lastShown?.titles() ?? [];
	},

	menuClick(title: string): void {
		obsidian.Menu.lastShown?.click(title);
	},

	editorText(): string | null {
		const view = this.app!.workspace.getMostRecentLeaf()?.view;
		return view instanceof obsidian.MarkdownView ? view.editor.getValue() : null;
	},

	command(id: string): boolean {
		return this.app!.commands.executeCommandById(id);
	},

	async createNote(path: string, content: string): Promise<void> {
		await this.app!.vault.create(path, content);
	},

	noteText(path: string): string | undefined {
		return this.app!.vault.contentOf(path);
	},

	notes(): string[] {
		return this.app!.vault.getMarkdownFiles().map((f) => f.path);
	},

	setTheme(theme: "dark" | "light"): void {
		document.body.classList.toggle("theme-dark", theme === "dark");
		document.body.classList.toggle("theme-light", theme === "light");
	},

	notices(): string[] {
		return [...obsidian.notices];
	},
};

(window as unknown as { vh: typeof vh }).vh = vh;
