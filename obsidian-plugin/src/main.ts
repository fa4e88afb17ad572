/**
 * Plugin lifecycle only: load settings, build the services, register views, commands, the
 * status bar, the settings tab and vault listeners (all through register* so unloading cleans
 * up by itself), connect when the layout is ready, and stop the sidecar if we started it.
 *
 * Obsidian does not unload plugins when the app quits, so `onunload` cannot be what stops the
 * sidecar: it is started with `--parent-pid` (this process), exits by itself once Obsidian is
 * gone, and the `quit` event stops it sooner when the app gets to run it.
 *
 * Mobile: this file imports no Node module. Spawning, path probing and the discovery file live
 * behind the platform seam (platform/), loaded only on the desktop app; on mobile the plugin
 * starts with what works there (a server at an address in settings, the snapshot) and the
 * sidebar and settings say what does not.
 */
import { MarkdownView, Notice, Platform, Plugin, requestUrl, TFile, type TAbstractFile } from "obsidian";
import { requestUrlTransport } from "./api/transport";
import { type DesktopPlatform, loadDesktopPlatform } from "./platform";
import { createServices, type Services } from "./services";
import { loadSettings, sidecarExcludes, type VaultheatSettings } from "./settings";
import { candidateCommands, detectCommand, installedVersion, SidecarManager } from "./sidecar";
import type { SetupState } from "./state/status";
import { toChangeEvent } from "./state/changes";
import { windowClock } from "./state/clock";
import { VIEW_TYPE_RELATED } from "./views/context";
import { relatedForSelection, RelatedView, revealRelated } from "./views/related-view";
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

	/** How the desktop half is loaded; a test replaces it (it must never run on mobile). */
	protected loadDesktop: () => Promise<DesktopPlatform> = loadDesktopPlatform;

	async onload(): Promise<void> {
		this.config = loadSettings(await this.loadData());
		const node = Platform.isDesktopApp && Platform.isDesktop ? await this.loadDesktop().catch((err: unknown) => desktopMissing(err)) : null;
		const vaultPath = node ? node.basePath(this.app.vault.adapter) : "";
		const desktop = node !== null && vaultPath !== "";

		const sidecar =
			node && desktop
				? new SidecarManager(
						node.spawn,
						() => ({
							command: this.config.command,
							pythonPath: this.config.pythonPath,
							vaultPath,
							port: explicitPort(this.config.serverUrl),
							indexDir: this.config.indexDir,
							exclude: sidecarExcludes(this.config.excluded),
							parentPid: node.pid,
							indexCores: this.config.indexCores,
						}),
						node.env,
						{ clock: windowClock, autoRestart: () => this.config.autoStart, platform: node.os },
					)
				: null;

		const adapter = this.app.vault.adapter;
		const pluginDir = this.manifest.dir ?? `${this.app.vault.configDir}/plugins/${this.manifest.id}`;
		const inPluginDir = (name: string): string => `${pluginDir}/${name}`;
		const services = createServices({
			app: this.app,
			transport: requestUrlTransport(requestUrl),
			events: node?.events ?? null,
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
			readExternal: node ? (absPath) => node.readFile(absPath) : undefined,
			vaultId: node && desktop ? node.vaultId(vaultPath) : null,
			detect: () => (node ? this.findSidecar(node) : null),
			remoteOnly: node === null,
			// Written through Obsidian's adapter into the plugin's own folder, so whatever syncs
			// the vault's config folder carries it (the sidecar never writes a note; its index
			// folder is <vault>/.vaultheat unless --index-dir puts it elsewhere).
			snapshotFiles: {
				read: async (name) => ((await adapter.exists(inPluginDir(name))) ? adapter.read(inPluginDir(name)) : null),
				write: async (name, text) => {
					const folder = inPluginDir(name).replace(/\/[^/]*$/, "");
					if (!(await adapter.exists(folder))) await adapter.mkdir(folder);
					await adapter.write(inPluginDir(name), text);
				},
				remove: async (name) => {
					if (await adapter.exists(inPluginDir(name))) await adapter.remove(inPluginDir(name));
				},
				stamp: async (name) => {
					const stat = await adapter.stat(inPluginDir(name));
					return stat ? `${stat.mtime}:${stat.size}` : null;
				},
			},
			keepSnapshot: () => this.config.keepSnapshot,
		});
		this.services = services;
		const ctx = services.viewContext();

		this.registerView(VIEW_TYPE_RELATED, (leaf) => new RelatedView(leaf, ctx));
		this.registerHoverLinkSource(VIEW_TYPE_RELATED, { display: "Vaultheat related notes", defaultMod: true });
		this.addRibbonIcon("flame", "Open related notes", () => void revealRelated(this.app));
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
				commandExists: (path) => desktop && node.exists(path),
				platformName: node?.os ?? "mobile",
				mobile: node === null,
			}),
		);

		this.addCommand({ id: "open-related-notes", name: "Open related notes", callback: () => void revealRelated(this.app) });
		this.addCommand({ id: "focus-related-notes", name: "Focus related notes", callback: () => void revealRelated(this.app, { focus: true }) });
		this.addCommand({
			id: "related-notes-for-selection",
			name: "Related notes for selection",
			editorCheckCallback: (checking, editor, ctx) => {
				if (!(ctx instanceof MarkdownView) || editor.getSelection().trim() === "") return false;
				if (!checking) void relatedForSelection(this.app, ctx);
				return true;
			},
		});
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

		this.addCommand({
			id: "rebuild-related-snapshot",
			name: "Rebuild the related notes snapshot",
			checkCallback: (checking) => {
				if (!services.snapshot || node === null || services.status.get().connection.phase !== "online") return false;
				if (!checking) {
					new Notice("Vaultheat: rebuilding the related notes snapshot.");
					void services.snapshot.rebuild().then(
						(r) => new Notice(r ? `Vaultheat: snapshot of ${services.snapshot?.snapshot.notes.size ?? 0} notes written (${Math.round(r.bytes / 1024)} KB).` : "Vaultheat: snapshot stopped."),
						(err: unknown) => new Notice(`Vaultheat: the snapshot failed: ${err instanceof Error ? err.message : String(err)}`),
					);
				}
				return true;
			},
		});

		// Best effort (the app does not promise to wait); --parent-pid is what guarantees it.
		this.registerEvent(this.app.workspace.on("quit", (tasks) => tasks.add(() => services.quit())));

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
			if (node === null) {
				// A phone or tablet opened this vault: say so once in data.json, so the desktop
				// (through the same sync) asks whether to keep the snapshot for it.
				if (this.config.phoneSeen === 0) void this.saveSettings({ phoneSeen: Date.now() });
			} else {
				void services.offerSnapshot();
			}
		});
	}

	onunload(): void {
		this.services?.dispose();
		// Only a sidecar this plugin started: one the user runs in a terminal keeps running.
		void this.services?.sidecar?.stopOwn();
		this.services = null;
	}

	/** data.json changed on disk (Obsidian Sync, another device): take the new settings. */
	async onExternalSettingsChange(): Promise<void> {
		const previous = this.config;
		this.config = loadSettings(await this.loadData());
		this.services?.settingsChanged(previous);
		// the same sync most likely brought the desktop's newer related-notes snapshot
		void this.services?.snapshotSynced();
	}

	private async saveSettings(patch: Partial<VaultheatSettings>): Promise<void> {
		const previous = this.config;
		this.config = loadSettings({ ...previous, ...patch });
		await this.saveData(this.config);
		this.services?.settingsChanged(previous);
	}

	/** The user turned the plugin on: show the sidebar, where the setup card asks first. */
	onUserEnable(): void {
		this.app.workspace.onLayoutReady(() => void revealRelated(this.app));
	}

	/**
	 * Looks for `vaultheat` on the usual install paths (apps started from a dock do not see the
	 * shell's PATH) and reads its version from its environment: nothing is run, and nothing is
	 * saved until the user answers the setup card.
	 */
	private findSidecar(node: DesktopPlatform): SetupState["found"] {
		const found = detectCommand(candidateCommands(this.config.command, node.env, node.os, node.home), (p) => node.exists(p));
		if (!found) return null;
		return { command: found, version: installedVersion(found, node, node.os) };
	}
}

/** The desktop half did not load (a host without a Node module): go on as on a phone. */
function desktopMissing(err: unknown): null {
	console.error("Vaultheat: the desktop features did not load; continuing without them (no sidecar from Obsidian).", err);
	return null;
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

/** Obsidian's own "Excluded files" (Settings → Files and links), which the sidecar honours too. */
function obsidianExcludes(app: unknown): string[] {
	const vault = (app as { vault?: { getConfig?: (key: string) => unknown } }).vault;
	const value = vault?.getConfig?.("userIgnoreFilters");
	return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
