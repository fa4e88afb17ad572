/** App and Plugin: the registries a plugin writes into (views, commands, tabs, data). */
import { Component } from "./events";
import { setIcon } from "./icons";
import { Keymap, type Modal, Scope } from "./modal";
import type { PluginSettingTab } from "./setting";
import { Vault, type TFile } from "./vault";
import { type Editor, MarkdownView, Workspace, type WorkspaceLeaf, type View } from "./workspace";

export interface Command {
	id: string;
	name: string;
	callback?: () => unknown;
	checkCallback?: (checking: boolean) => boolean | void;
	editorCallback?: (...args: unknown[]) => unknown;
	editorCheckCallback?: (checking: boolean, editor: Editor, ctx: MarkdownView) => boolean | void;
	hotkeys?: unknown[];
	icon?: string;
}

export interface PluginManifest {
	id: string;
	name: string;
	version: string;
	minAppVersion: string;
	description: string;
	author: string;
	isDesktopOnly?: boolean;
	dir?: string;
}

export class App {
	readonly document: Document;
	vault: Vault;
	workspace: Workspace;
	viewRegistry = new Map<string, (leaf: WorkspaceLeaf) => View>();
	hoverSources = new Map<string, { display: string; defaultMod: boolean }>();
	openModals: Modal[] = [];
	pluginData = new Map<string, unknown>();
	settingTabs: PluginSettingTab[] = [];
	ribbonEl: HTMLElement;
	statusBarEl: HTMLElement;
	commands = {
		commands: {} as Record<string, Command>,
		executeCommandById: (id: string): boolean => {
			const cmd = this.commands.commands[id];
			if (!cmd) return false;
			if (cmd.checkCallback) return cmd.checkCallback(false) !== false;
			if (cmd.editorCheckCallback) {
				const view = this.workspace.getActiveViewOfType(MarkdownView);
				if (!view || cmd.editorCheckCallback(true, view.editor, view) === false) return false;
				cmd.editorCheckCallback(false, view.editor, view);
				return true;
			}
			void cmd.callback?.();
			return true;
		},
	};
	setting = {
		opened: [] as string[],
		open: (): void => {
			this.setting.opened.push("");
		},
		openTabById: (id: string): void => {
			this.setting.opened.push(id);
		},
	};
	fileManager = {
		generateMarkdownLink: (file: TFile, _sourcePath: string, subpath = "", alias = ""): string =>
			`[[${file.basename}${subpath}${alias ? `|${alias}` : ""}]]`,
	};
	metadataCache = new Component();
	/** The app's hotkeys (a test binds the user's own here). */
	scope = new Scope();
	keymap: Keymap;

	constructor(doc: Document = window.document, vault: Vault = new Vault()) {
		this.document = doc;
		this.vault = vault;
		this.workspace = new Workspace(this);
		this.keymap = new Keymap(this);
		this.ribbonEl = doc.createElement("div");
		this.ribbonEl.className = "workspace-ribbon side-dock-ribbon mod-left";
		this.statusBarEl = doc.createElement("div");
		this.statusBarEl.className = "status-bar";
	}
}

export class Plugin extends Component {
	app: App;
	manifest: PluginManifest;

	constructor(app: App, manifest: PluginManifest) {
		super();
		this.app = app;
		this.manifest = manifest;
	}

	addRibbonIcon(icon: string, title: string, callback: (evt: MouseEvent) => unknown): HTMLElement {
		const el = this.app.document.createElement("div");
		el.className = "side-dock-ribbon-action clickable-icon";
		el.setAttribute("aria-label", title);
		setIcon(el, icon);
		el.addEventListener("click", (evt) => callback(evt));
		this.app.ribbonEl.appendChild(el);
		this.register(() => el.remove());
		return el;
	}

	addStatusBarItem(): HTMLElement {
		const el = this.app.document.createElement("div");
		el.className = `status-bar-item plugin-${this.manifest.id}`;
		this.app.statusBarEl.appendChild(el);
		this.register(() => el.remove());
		return el;
	}

	addCommand(command: Command): Command {
		const full = { ...command, id: `${this.manifest.id}:${command.id}` };
		this.app.commands.commands[full.id] = full;
		this.register(() => delete this.app.commands.commands[full.id]);
		return full;
	}

	addSettingTab(tab: PluginSettingTab): void {
		this.app.settingTabs.push(tab);
		this.register(() => {
			this.app.settingTabs = this.app.settingTabs.filter((t) => t !== tab);
		});
	}

	registerView(type: string, factory: (leaf: WorkspaceLeaf) => View): void {
		this.app.viewRegistry.set(type, factory);
		this.register(() => this.app.viewRegistry.delete(type));
	}

	registerHoverLinkSource(id: string, info: { display: string; defaultMod: boolean }): void {
		this.app.hoverSources.set(id, info);
		this.register(() => this.app.hoverSources.delete(id));
	}

	registerEditorExtension(_extension: unknown): void {}

	/** Obsidian calls it when the user turns the plugin on (not on every start). */
	onUserEnable(): void {}

	async loadData(): Promise<unknown> {
		const data = this.app.pluginData.get(this.manifest.id);
		return data === undefined ? null : structuredClone(data);
	}

	async saveData(data: unknown): Promise<void> {
		this.app.pluginData.set(this.manifest.id, structuredClone(data));
	}
}
