/**
 * Plugin lifecycle only: load settings, build the services, register views, commands, the
 * status bar, the settings tab and vault listeners (all through register* so unloading cleans
 * up by itself), connect when the layout is ready, and stop the sidecar if we started it.
 */
import * as childProcess from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as http from "http";
import * as https from "https";
import * as os from "os";
import { FileSystemAdapter, Notice, Platform, Plugin, requestUrl, TFile, type TAbstractFile } from "obsidian";
import { nodeEventStream } from "./api/events";
import { requestUrlTransport } from "./api/transport";
import { createServices, type Services } from "./services";
import { loadSettings, sidecarExcludes, type VaultheatSettings } from "./settings";
import { candidateCommands, detectCommand, SidecarManager } from "./sidecar";
import { toChangeEvent } from "./state/changes";
import { windowClock } from "./state/clock";
import { VIEW_TYPE_RELATED } from "./views/context";
import { RelatedView } from "./views/related-view";
import { SearchModal } from "./views/search-modal";
import { VaultheatSettingTab } from "./views/settings-tab";
import { mountStatusBar } from "./views/status-bar";
import { StatusModal } from "./views/status-modal";

interface AppWithSettings {
	setting?: { open(): void; openTabById(id: string): void };
}

export default class VaultheatPlugin extends Plugin {
	private config!: VaultheatSettings;
	private services: Services | null = null;

	async onload(): Promise<void> {
		this.config = loadSettings(await this.loadData());
		const adapter = this.app.vault.adapter;
		const vaultPath = adapter instanceof FileSystemAdapter ? adapter.getBasePath() : "";
		const desktop = Platform.isDesktopApp && vaultPath !== "";
		const env = typeof process === "undefined" ? {} : process.env;
		if (desktop) await this.detectSidecar(env);

		const sidecar = desktop
			? new SidecarManager(
					childProcess.spawn,
					() => ({
						command: this.config.command,
						pythonPath: this.config.pythonPath,
						vaultPath,
						port: explicitPort(this.config.serverUrl),
						indexDir: this.config.indexDir,
						exclude: sidecarExcludes(this.config.excluded),
					}),
					env,
				)
			: null;

		const services = createServices({
			app: this.app,
			transport: requestUrlTransport(requestUrl),
			events: Platform.isDesktopApp
				? nodeEventStream((url, options, callback) =>
						String(url).startsWith("https:") ? https.request(url, options, callback) : http.request(url, options, callback),
					)
				: null,
			sidecar,
			clock: windowClock,
			vaultPath,
			settings: () => this.config,
			saveSettings: (patch) => this.saveSettings(patch),
			openSettings: () => {
				const setting = (this.app as unknown as AppWithSettings).setting;
				setting?.open();
				setting?.openTabById(this.manifest.id);
			},
			showStatus: () => new StatusModal(services.viewContext()).open(),
			readExternal: async (absPath) => {
				try {
					return await fs.promises.readFile(absPath, "utf8");
				} catch {
					return null;
				}
			},
			vaultId: desktop ? vaultIdOf(vaultPath) : null,
		});
		this.services = services;
		const ctx = services.viewContext();

		this.registerView(VIEW_TYPE_RELATED, (leaf) => new RelatedView(leaf, ctx));
		this.registerHoverLinkSource(VIEW_TYPE_RELATED, { display: "Vaultheat related notes", defaultMod: true });
		this.addRibbonIcon("flame", "Open related notes", () => void this.openRelated());
		this.register(mountStatusBar(this.addStatusBarItem(), services.status, () => services.fix("show-status")));
		this.addSettingTab(
			new VaultheatSettingTab(this.app, this, {
				settings: () => this.config,
				saveSettings: (patch) => this.saveSettings(patch),
				fix: (action) => services.fix(action),
				canSpawn: sidecar !== null,
				status: services.status,
				changeModel: (preset) => services.changeModel(preset),
				obsidianExcludes: () => obsidianExcludes(this.app),
				commandExists: (path) => desktop && fs.existsSync(path),
			}),
		);

		this.addCommand({ id: "open-related-notes", name: "Open related notes", callback: () => void this.openRelated() });
		this.addCommand({ id: "semantic-search", name: "Semantic search", callback: () => new SearchModal(ctx).open() });
		this.addCommand({ id: "show-status", name: "Show index status", callback: () => services.fix("show-status") });
		this.addCommand({ id: "update-index", name: "Update index", callback: () => services.fix("build-index") });
		this.addCommand({
			id: "start-sidecar",
			name: "Start sidecar",
			checkCallback: (checking) => {
				if (!sidecar || sidecar.running()) return false;
				if (!checking) services.fix("start-sidecar");
				return true;
			},
		});
		this.addCommand({
			id: "stop-sidecar",
			name: "Stop sidecar",
			checkCallback: (checking) => {
				if (!sidecar?.running()) return false;
				if (!checking) services.fix("stop-sidecar");
				return true;
			},
		});

		this.app.workspace.onLayoutReady(() => {
			// Registered only now: Obsidian fires `create` for every file while loading a vault.
			const forward = (type: "create" | "modify" | "delete") => (file: TAbstractFile) => {
				if (file instanceof TFile) services.changes.push(toChangeEvent(type, file.path, undefined, services.excluded()));
			};
			this.registerEvent(this.app.vault.on("create", forward("create")));
			this.registerEvent(this.app.vault.on("modify", forward("modify")));
			this.registerEvent(this.app.vault.on("delete", forward("delete")));
			this.registerEvent(
				this.app.vault.on("rename", (file, oldPath) => {
					if (file instanceof TFile) services.changes.push(toChangeEvent("rename", file.path, oldPath, services.excluded()));
				}),
			);
			services.connection.connect();
		});
	}

	onunload(): void {
		this.services?.dispose();
		void this.services?.sidecar?.stop();
		this.services = null;
	}

	private async saveSettings(patch: Partial<VaultheatSettings>): Promise<void> {
		const previous = this.config;
		this.config = loadSettings({ ...previous, ...patch });
		await this.saveData(this.config);
		this.services?.settingsChanged(previous);
	}

	/**
	 * First run: find `vaultheat` on the usual install paths (apps started from a dock do not
	 * see the shell's PATH), remember the full path, and say that it now starts by itself.
	 */
	private async detectSidecar(env: Record<string, string | undefined>): Promise<void> {
		if (this.config.setupDone || this.config.pythonPath) return;
		const found = detectCommand(candidateCommands(this.config.command, env, typeof process === "undefined" ? "linux" : process.platform, os.homedir()), (p) => fs.existsSync(p));
		if (!found) return;
		await this.saveSettings({ command: found, setupDone: true });
		new Notice(`Vaultheat: found the sidecar at ${found}. It starts with this vault from now on (settings → Start automatically).`);
	}

	private async openRelated(): Promise<void> {
		const { workspace } = this.app;
		let leaf = workspace.getLeavesOfType(VIEW_TYPE_RELATED)[0] ?? null;
		if (!leaf) {
			leaf = workspace.getRightLeaf(false);
			await leaf?.setViewState({ type: VIEW_TYPE_RELATED, active: true });
		}
		if (leaf) await workspace.revealLeaf(leaf);
	}
}

/** The port of an explicit loopback address in settings, to start the sidecar on it. */
function explicitPort(serverUrl: string): number | null {
	if (!serverUrl) return null;
	try {
		const port = Number(new URL(serverUrl).port);
		return Number.isInteger(port) && port > 0 ? port : null;
	} catch {
		return null;
	}
}

/** First 16 hex digits of sha256 of the vault's resolved path, as `/v1/health` reports it. */
function vaultIdOf(vaultPath: string): string | null {
	try {
		const resolved = fs.realpathSync(vaultPath);
		return crypto.createHash("sha256").update(resolved, "utf8").digest("hex").slice(0, 16);
	} catch {
		return null;
	}
}

/** Obsidian's own "Excluded files" (Settings → Files and links), which the sidecar honours too. */
function obsidianExcludes(app: unknown): string[] {
	const vault = (app as { vault?: { getConfig?: (key: string) => unknown } }).vault;
	const value = vault?.getConfig?.("userIgnoreFilters");
	return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
