/**
 * The e2e page: an Obsidian-shaped window built from the stub, into which run-e2e.mjs loads the
 * built main.js the way Obsidian does (CommonJS, with `require` answering "obsidian" and Node
 * built-ins). requestUrl and the stub vault go through the harness server: requests to the
 * sidecar via its Origin-less proxy (like Obsidian's requestUrl), file writes to the tmp vault.
 */
import * as obsidian from "../../test/stubs/obsidian";
import { childProcess, crypto, fs, http, installed, knownHashes, os, spawned } from "./node-shims";

interface BootOptions {
	files: Record<string, string>;
	hidden: Record<string, string>;
	basePath: string;
	manifest: obsidian.PluginManifest;
	theme: "dark" | "light";
	/** sha256 hex by input, computed in Node (the page has no synchronous sha256). */
	hashes?: Record<string, string>;
	/** A vaultheat "installed" with pipx on this pretend machine (for the setup card). */
	installed?: { command: string; version: string };
	/** Obsidian on a phone: Platform says mobile app, the adapter is not a FileSystemAdapter, and
	 * main.js gets no Node module from `require` (each asked for is recorded in `vh.required`). */
	mobile?: boolean;
	/** The Origin the proxy sends with the plugin's requests (the mobile app's, say). */
	origin?: string;
	/** Modified times (epoch ms) by path, as a sync service left them (default: now). */
	mtimes?: Record<string, number>;
}

let sendOrigin = "";

interface PluginLike {
	load(): void;
	unload(): void;
}

async function proxyRequest(p: obsidian.RequestUrlParam): Promise<obsidian.RequestUrlResponse> {
	const headers: Record<string, string> = { ...(p.headers ?? {}), "x-vh-url": p.url };
	if (sendOrigin) headers["x-vh-origin"] = sendOrigin;
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
	// Obsidian's chrome for the screenshots: a file explorer on the left, a tab header above
	// the note. Both follow the open note.
	const left = document.createElement("div");
	left.className = "workspace-split mod-left-split vh-explorer";
	app.workspace.containerEl.prepend(left);
	const tabs = document.createElement("div");
	tabs.className = "workspace-tab-header-container";
	const root = app.workspace.containerEl.querySelector(".mod-root");
	root?.prepend(tabs);
	const refresh = (opened?: obsidian.TFile | null): void => {
		const active = opened?.path ?? app.workspace.getActiveFile()?.path ?? null;
		// Like Obsidian's explorer: no dot folders.
		const visible = app.vault.getMarkdownFiles().map((f) => f.path).filter((p) => !p.split("/").some((part) => part.startsWith(".")));
		renderExplorer(left, visible, active);
		tabs.replaceChildren();
		if (active) {
			const tab = document.createElement("div");
			tab.className = "workspace-tab-header is-active";
			tab.textContent = active.replace(/^.*\//, "").replace(/\.md$/, "");
			tabs.append(tab);
		}
	};
	app.workspace.on("file-open", (file) => refresh(file));
	app.vault.on("create", () => refresh());
	refresh();
}

function renderExplorer(el: HTMLElement, paths: string[], active: string | null): void {
	el.replaceChildren();
	const head = document.createElement("div");
	head.className = "vh-explorer-title";
	head.textContent = "Files";
	el.append(head);
	const seen = new Set<string>();
	for (const path of [...paths].sort((a, b) => a.localeCompare(b))) {
		const parts = path.split("/");
		for (let i = 0; i < parts.length - 1; i++) {
			const folder = parts.slice(0, i + 1).join("/");
			if (seen.has(folder)) continue;
			seen.add(folder);
			const row = document.createElement("div");
			row.className = "nav-folder-title";
			row.style.paddingLeft = `${12 + i * 14}px`;
			row.textContent = `▾ ${parts[i]}`;
			el.append(row);
		}
		const row = document.createElement("div");
		row.className = `nav-file-title${path === active ? " is-active" : ""}`;
		row.style.paddingLeft = `${24 + (parts.length - 1) * 14}px`;
		row.textContent = (parts[parts.length - 1] ?? path).replace(/\.md$/, "");
		el.append(row);
	}
}

/** Just enough Markdown for a reading-view screenshot: properties, headings, lists, links. */
function renderMarkdown(source: string): HTMLElement {
	const out = document.createElement("div");
	out.className = "markdown-rendered vh-reading";
	const inline = (text: string, parent: HTMLElement): void => {
		const re = /\*\*(.+?)\*\*|\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]+))?\]\]|`([^`]+)`/g;
		let last = 0;
		for (const m of text.matchAll(re)) {
			parent.append(text.slice(last, m.index));
			if (m[1] !== undefined) parent.append(Object.assign(document.createElement("strong"), { textContent: m[1] }));
			else if (m[2] !== undefined) parent.append(Object.assign(document.createElement("a"), { className: "internal-link", textContent: m[3] ?? m[2] }));
			else parent.append(Object.assign(document.createElement("code"), { textContent: m[4] ?? "" }));
			last = m.index + m[0].length;
		}
		parent.append(text.slice(last));
	};
	let lines = source.replace(/\r\n?/g, "\n").split("\n");
	if (lines[0] === "---") {
		const end = lines.indexOf("---", 1);
		const props = document.createElement("div");
		props.className = "metadata-container";
		for (const line of lines.slice(1, end)) {
			const [key, ...rest] = line.split(":");
			if (!key || rest.length === 0) continue;
			const row = document.createElement("div");
			row.className = "metadata-property";
			row.append(Object.assign(document.createElement("span"), { className: "metadata-property-key", textContent: key.trim() }));
			row.append(Object.assign(document.createElement("span"), { className: "metadata-property-value", textContent: rest.join(":").trim() }));
			props.append(row);
		}
		out.append(props);
		lines = lines.slice(end + 1);
	}
	let list: HTMLElement | null = null;
	for (const line of lines) {
		const heading = /^(#{1,6})\s+(.*)$/.exec(line);
		const item = /^\s*[-*]\s+(.*)$/.exec(line);
		if (!item) list = null;
		if (heading) {
			const h = document.createElement(`h${heading[1]!.length}`);
			inline(heading[2] ?? "", h);
			out.append(h);
		} else if (item) {
			if (!list) {
				list = document.createElement("ul");
				out.append(list);
			}
			const li = document.createElement("li");
			inline(item[1] ?? "", li);
			list.append(li);
		} else if (line.trim()) {
			const p = document.createElement("p");
			inline(line, p);
			out.append(p);
		}
	}
	return out;
}

const vh = {
	app: null as obsidian.App | null,
	plugin: null as PluginLike | null,
	errors: [] as string[],
	mobile: false,
	/** Modules main.js asked `require` for beyond obsidian, on a phone (must stay empty). */
	required: [] as string[],

	boot(options: BootOptions): void {
		document.body.classList.add(options.theme === "dark" ? "theme-dark" : "theme-light");
		this.mobile = options.mobile ?? false;
		sendOrigin = options.origin ?? "";
		if (this.mobile) {
			Object.assign(obsidian.Platform, { isDesktop: false, isDesktopApp: false, isMobile: true, isMobileApp: true, isPhone: true });
			document.body.classList.add("is-mobile", "is-phone");
		}
		const adapter = this.mobile ? new obsidian.DataAdapter() : new obsidian.FileSystemAdapter(options.basePath);
		const vault = new obsidian.Vault(adapter);
		vault.seed(options.files);
		for (const [path, mtime] of Object.entries(options.mtimes ?? {})) {
			const file = vault.getFileByPath(path);
			if (file) file.stat = { ...file.stat, mtime };
		}
		for (const [path, data] of Object.entries(options.hidden)) adapter.hidden.set(path, data);
		for (const [input, hex] of Object.entries(options.hashes ?? {})) knownHashes.set(input, hex);
		installed.command = options.installed?.command ?? null;
		installed.version = options.installed?.version ?? "";
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
		const modules: Record<string, unknown> = this.mobile ? { obsidian } : { obsidian, http, https: http, child_process: childProcess, crypto, fs, os };
		const require = (name: string): unknown => {
			if (name !== "obsidian" && this.mobile) this.required.push(name);
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

	/** A file that is not a note appears in the vault (copied in on disk): Obsidian lists it and fires `create`. */
	fileAppeared(path: string): void {
		const vault = this.app!.vault;
		vault.seed({ [path]: "" });
		vault.trigger("create", vault.getFileByPath(path));
	},

	/** The main area's view: its type, file and the eState it was opened with (a PDF's `subpath`). */
	openedView(): { type: string; file: string | null; eState: Record<string, unknown> | null; links: string[] } {
		const workspace = this.app!.workspace;
		const view = workspace.getMostRecentLeaf()?.view;
		const file = view instanceof obsidian.FileView || view instanceof obsidian.MarkdownView ? (view.file?.path ?? null) : null;
		return { type: view?.getViewType() ?? "", file, eState: view instanceof obsidian.FileView ? view.eState : null, links: [...workspace.linksOpened] };
	},

	activeFile(): string | null {
		return this.app!.workspace.getActiveFile()?.path ?? null;
	},

	cursorLine(): number | null {
		const view = this.app!.workspace.getMostRecentLeaf()?.view;
		return view instanceof obsidian.MarkdownView ? view.editor.getCursor().line : null;
	},

	/** A file in the vault's config folder as the plugin wrote it through the adapter (e.g. its snapshot). */
	hiddenFile(path: string): string | null {
		return this.app!.vault.adapter.hidden.get(path) ?? null;
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

	/** Reading view for screenshots: the open note rendered over its editor, or back to editing. */
	reading(on: boolean): void {
		document.querySelectorAll(".vh-reading").forEach((el) => el.remove());
		document.body.classList.toggle("is-reading", on);
		if (!on) return;
		const view = this.app!.workspace.getMostRecentLeaf()?.view;
		if (view instanceof obsidian.MarkdownView) view.contentEl.append(renderMarkdown(view.editor.getValue()));
	},

	setTheme(theme: "dark" | "light"): void {
		document.body.classList.toggle("theme-dark", theme === "dark");
		document.body.classList.toggle("theme-light", theme === "light");
	},

	notices(): string[] {
		return [...obsidian.notices];
	},

	/** Processes the plugin tried to start, as command lines. */
	spawned(): string[][] {
		return spawned.map((argv) => [...argv]);
	},
};

(window as unknown as { vh: typeof vh }).vh = vh;
