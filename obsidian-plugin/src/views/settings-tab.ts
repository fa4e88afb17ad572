/**
 * The settings tab: every option with a one-line description. Values are saved as they change;
 * main.ts decides what a change means (reconnect, re-query, restart the sidecar).
 */
import { type App, Modal, Notice, type Plugin, PluginSettingTab, requireApiVersion, Setting, type SliderComponent, TFolder } from "obsidian";
import { DEFAULT_URL, DISCOVERY_PATH, plainHttpWarning } from "../api/discovery";
import { LIMITS, parsePatternList, type RerankMode, type VaultheatSettings } from "../settings";
import { venvCommand } from "../sidecar";
import type { FixAction } from "../state/diagnosis";
import type { RelevanceThreshold } from "../state/relevance";
import type { AppStatus } from "../state/status";
import type { Store } from "../state/store";
import { confirm } from "./confirm";

export interface SettingsHost {
	settings(): VaultheatSettings;
	saveSettings(patch: Partial<VaultheatSettings>): Promise<void>;
	fix(action: FixAction): void;
	canSpawn: boolean;
	/** For the sidecar's own exclusions and the model in use. */
	status?: Store<AppStatus>;
	/** Switches the model preset (writes the index's config, restarts, rebuilds). */
	changeModel?: (preset: "english" | "multilingual") => Promise<string>;
	/** Obsidian's "Excluded files" (Files and links). */
	obsidianExcludes?: () => string[];
	/** Whether a file exists (desktop); used by "Find the sidecar". */
	commandExists?: (path: string) => boolean;
	/** process.platform on desktop ("darwin", "win32", "linux"), "mobile" in the mobile app. */
	platformName?: string;
	/** The mobile app: no sidecar here, only a server at an address, or the snapshot. */
	mobile?: boolean;
}

export const MODEL_PRESETS = {
	english: "English (small, fast; the default)",
	multilingual: "Multilingual (many languages; larger, slower)",
} as const;

export class VaultheatSettingTab extends PluginSettingTab {
	private readonly host: SettingsHost;

	constructor(app: App, plugin: Plugin, host: SettingsHost) {
		super(app, plugin);
		this.host = host;
	}

	display(): void {
		const { containerEl } = this;
		const s = this.host.settings();
		const save = (patch: Partial<VaultheatSettings>): void => {
			void this.host.saveSettings(patch);
		};
		containerEl.empty();
		containerEl.addClass("vaultheat-settings");

		new Setting(containerEl).setName("Connection").setHeading();
		if (this.host.mobile) {
			containerEl.createDiv({
				cls: "setting-item-description",
				text: "On this device Vaultheat cannot run its sidecar. Give the address and token of one running elsewhere (vaultheat serve --allow-remote on your desktop or a home server) for search and live related notes; without one, the sidebar shows the related notes snapshot your desktop wrote.",
			});
		}
		containerEl.createDiv({
			cls: "setting-item-description vaultheat-network-note",
			text: "Requests carry the open note's text (for related notes), your search queries and the token. With no address set they go to the sidecar on this computer (127.0.0.1) only; with an address, to that address, so use https:// or a private network.",
		});
		let warning: HTMLElement | null = null;
		const showWarning = (url: string): void => {
			const text = plainHttpWarning(url);
			warning?.toggleClass("vaultheat-hidden", text === null);
			warning?.setText(text ?? "");
		};
		const address = new Setting(containerEl)
			.setName("Sidecar address")
			.setDesc(
				this.host.mobile
					? "The server's address, e.g. https://homebox.tailnet:51764 (serve --allow-remote). Empty: no server, the snapshot only."
					: `Leave empty to use the address in ${DISCOVERY_PATH}, else ${DEFAULT_URL}.`,
			)
			.addText((text) =>
				text
					.setPlaceholder(DEFAULT_URL)
					.setValue(s.serverUrl)
					.onChange((value) => {
						showWarning(value);
						save({ serverUrl: value.trim() });
					}),
			);
		warning = address.descEl.createDiv({ cls: "vaultheat-address-warning mod-warning" });
		showWarning(s.serverUrl);
		new Setting(containerEl)
			.setName("Token")
			.setDesc(
				this.host.mobile
					? "The token from server.json in the server's index folder."
					: `Leave empty to read it from ${DISCOVERY_PATH} when the sidecar runs on this computer.`,
			)
			.addText((text) => {
				text.inputEl.type = "password";
				text.inputEl.autocomplete = "off";
				text
					.setPlaceholder("From the discovery file")
					.setValue(s.token)
					.onChange((value) => save({ token: value.trim() }));
			})
			.addButton((button) => button.setButtonText("Reconnect").onClick(() => this.host.fix("retry")));

		new Setting(containerEl)
			.setName("Keep a snapshot for mobile")
			.setDesc(
				this.host.mobile
					? "Written by the desktop app, when turned on there: each note's related notes, read here when no server answers."
					: "Off unless turned on. After each index pass, write each note's top related notes to the plugin's folder, in 32 parts (about 5 MB per 10,000 notes in all, each part a few hundred KB at most), rewriting only the parts whose lists changed, so Obsidian on a phone shows them without a model or a server.",
			)
			.addToggle((toggle) =>
				toggle
					.setValue(s.keepSnapshot)
					.setDisabled(Boolean(this.host.mobile))
					.onChange((value) => save({ keepSnapshot: value, snapshotAsked: true })),
			);

		new Setting(containerEl).setName("Sidecar").setHeading();
		if (this.host.mobile) {
			containerEl.createDiv({
				cls: "setting-item-description",
				text: "Starting, stopping and configuring a sidecar needs the desktop app; on this device Vaultheat uses the server above, or the snapshot.",
			});
		} else {
			this.sidecarSettings(containerEl, s, save);
		}

		new Setting(containerEl).setName("Results").setHeading();
		const count = new Setting(containerEl)
			.setName("Result count")
			.setDesc("How many related notes and search results to show.");
		count.addSlider((slider) => {
			slider
				.setLimits(LIMITS.resultCount.min, LIMITS.resultCount.max, 1)
				.setValue(s.resultCount)
				.onChange((value) => save({ resultCount: value }));
			showValue(count, slider, s.resultCount, (v) => String(v));
		});
		const pause = new Setting(containerEl)
			.setName("Typing pause")
			.setDesc("Milliseconds without typing before related notes refresh (search asks at once).");
		pause.addSlider((slider) => {
			slider
				.setLimits(LIMITS.debounceMs.min, LIMITS.debounceMs.max, 50)
				.setValue(s.debounceMs)
				.onChange((value) => save({ debounceMs: value }));
			showValue(pause, slider, s.debounceMs, (v) => `${v} ms`);
		});
		new Setting(containerEl)
			.setName("Hide weak matches")
			.setDesc("Relevance is absolute (the same scale for every note and query), so a list can honestly be empty: hide matches below the level you pick.")
			.addDropdown((dropdown) =>
				dropdown
					.addOptions({ all: "Show all matches", good: "Hide weak matches", strong: "Strong matches only" })
					.setValue(s.threshold)
					.onChange((value) => save({ threshold: value as RelevanceThreshold })),
			);
		new Setting(containerEl)
			.setName("Unlinked only by default")
			.setDesc("Open the sidebar showing only notes that are not linked yet.")
			.addToggle((toggle) => toggle.setValue(s.unlinkedOnlyDefault).onChange((value) => save({ unlinkedOnlyDefault: value })));
		new Setting(containerEl)
			.setName("Rerank results")
			.setDesc("A cross-encoder rereads the top search results and related notes: better order, slower answers.")
			.addDropdown((dropdown) =>
				dropdown
					.addOptions({ server: "Use the sidecar's setting", on: "On", off: "Off" })
					.setValue(s.rerank)
					.onChange((value) => save({ rerank: value as RerankMode })),
			);
		this.displayHidden(containerEl);
		this.displayModel(containerEl);
		this.displayExclusions(containerEl);
	}

	/** Starting the sidecar and what it is started with (desktop only). */
	private sidecarSettings(containerEl: HTMLElement, s: VaultheatSettings, save: (patch: Partial<VaultheatSettings>) => void): void {
		if (!this.host.canSpawn) {
			containerEl.createDiv({ cls: "setting-item-description", text: "Starting the sidecar from Obsidian needs the desktop app." });
		}
		new Setting(containerEl)
			.setName("Start automatically")
			.setDesc("Start this vault's sidecar (on a free port) whenever none is running, without asking; it stops when Obsidian quits.")
			.addToggle((toggle) => toggle.setValue(s.autoStart).setDisabled(!this.host.canSpawn).onChange((value) => save({ autoStart: value })));
		new Setting(containerEl)
			.setName("Command")
			.setDesc("The sidecar executable, or its full path if Obsidian does not find it (apps started from a dock may not see your shell's search path).")
			.addText((text) =>
				text
					.setPlaceholder("/usr/local/bin/vaultheat")
					.setValue(s.command)
					.onChange((value) => save({ command: value.trim() })),
			);
		new Setting(containerEl)
			.setName("Python path")
			.setDesc("Optional: run the sidecar as <python> -m vaultheat.cli with this interpreter instead.")
			.addText((text) =>
				text
					.setPlaceholder("/path/to/venv/bin/python")
					.setValue(s.pythonPath)
					.onChange((value) => save({ pythonPath: value.trim() })),
			)
			.addButton((button) => button.setButtonText("Start now").setDisabled(!this.host.canSpawn).onClick(() => this.host.fix("start-sidecar")));
		new Setting(containerEl)
			.setName("Find the sidecar")
			.setDesc("Point at a vaultheat checkout or its .venv folder once: the plugin uses its vaultheat from then on.")
			.addText((text) => {
				text.setPlaceholder("/path/to/vaultheat");
				text.inputEl.addEventListener("change", () => {
					const folder = text.getValue().trim();
					if (!folder) return;
					const command = venvCommand(folder, this.host.platformName ?? "linux");
					if (this.host.commandExists && !this.host.commandExists(command)) {
						new Notice(`No vaultheat at ${command}. Run scripts/setup.sh in that checkout first.`);
						return;
					}
					void this.host.saveSettings({ command, pythonPath: "", setupDone: true }).then(() => {
						new Notice(`Vaultheat: using ${command}.`);
					});
				});
			});
		new Setting(containerEl)
			.setName("Index folder")
			.setDesc("Leave empty to keep the index in .vaultheat inside the vault. For a synced vault, pick a folder outside it; the sidecar is started with --index-dir and its server.json is read from there.")
			.addText((text) =>
				text
					.setPlaceholder("/home/me/.cache/vaultheat/work")
					.setValue(s.indexDir)
					.onChange((value) => save({ indexDir: value.trim() })),
			);

		const cores = new Setting(containerEl)
			.setName("Cores while indexing")
			.setDesc("Use at most this many CPU cores while the sidecar indexes (0: all but one). Taken the next time the sidecar starts.");
		cores.addSlider((slider) => {
			slider
				.setLimits(LIMITS.indexCores.min, Math.min(LIMITS.indexCores.max, 32), 1)
				.setValue(s.indexCores)
				.onChange((value) => save({ indexCores: value }));
			showValue(cores, slider, s.indexCores, (v) => (v === 0 ? "all" : String(v)));
		});
	}

	/** Suggestions hidden from a note's list ("Hide this suggestion for this note"), to undo. */
	private displayHidden(containerEl: HTMLElement): void {
		const section = containerEl.createDiv({ cls: "vaultheat-hidden" });
		const unhide = (next: Record<string, string[]>): void => {
			void this.host.saveSettings({ hiddenSuggestions: next }).then(draw);
		};
		const draw = (): void => {
			section.empty();
			const hidden = this.host.settings().hiddenSuggestions;
			const pairs = Object.entries(hidden).flatMap(([source, targets]) => targets.map((target) => ({ source, target })));
			const setting = new Setting(section)
				.setName("Hidden suggestions")
				.setDesc(pairs.length === 0 ? "None: “Hide this suggestion for this note” in a row's menu hides one from that note's list." : `${pairs.length} hidden from related notes (each from one note's list only).`);
			if (pairs.length === 0) return;
			setting.addButton((button) => button.setButtonText("Show all again").onClick(() => unhide({})));
			const list = section.createDiv({ cls: "vaultheat-hidden-list" });
			for (const { source, target } of pairs) {
				const item = list.createDiv({ cls: "vaultheat-hidden-item" });
				item.createSpan({ cls: "vaultheat-hidden-text", text: `${target}, for ${source}` });
				item.createEl("button", { text: "Show again", attr: { type: "button" } }).addEventListener("click", () => {
					const next = { ...this.host.settings().hiddenSuggestions };
					const rest = (next[source] ?? []).filter((t) => t !== target);
					if (rest.length > 0) next[source] = rest;
					else delete next[source];
					unhide(next);
				});
			}
		};
		draw();
	}

	private displayModel(containerEl: HTMLElement): void {
		const s = this.host.settings();
		new Setting(containerEl).setName("Model").setHeading();
		const inUse = this.host.status?.get().index.status?.model;
		const setting = new Setting(containerEl)
			.setName("Embedding model")
			.setDesc(
				`${inUse ? `In use: ${inUse.name}. ` : ""}Changing it rebuilds the index from scratch (every note is embedded again; minutes on a large vault). The plugin sets it in the index's config, restarts the sidecar and starts the rebuild.`,
			);
		setting.addDropdown((dropdown) => {
			dropdown.addOptions({ server: "As configured in the sidecar", ...MODEL_PRESETS }).setValue(s.model);
			dropdown.onChange((value) => {
				if (value === "server") {
					void this.host.saveSettings({ model: "server" });
					return;
				}
				const preset = value as "english" | "multilingual";
				void confirm(this.app, {
					title: `Switch to the ${preset} model?`,
					body: "The index is rebuilt from scratch with the new model; search and related notes use the old results until it is done.",
					yes: "Switch and rebuild",
				}).then((yes) => {
					if (!yes) {
						dropdown.setValue(s.model);
						return;
					}
					if (!this.host.changeModel) return;
					void this.host.changeModel(preset).then((message) => new Notice(`Vaultheat: ${message}`));
				});
			});
			dropdown.selectEl.disabled = !this.host.canSpawn;
		});
	}

	private displayExclusions(containerEl: HTMLElement): void {
		const s = this.host.settings();
		new Setting(containerEl).setName("Excluded from the index").setHeading();
		let area: HTMLTextAreaElement | null = null;
		new Setting(containerEl)
			.setName("Excluded folders and patterns")
			.setDesc("One per line: a folder (templates/) or a glob (**/drafts/*.md). Applied when you leave the box: the sidecar leaves them out of its index (it restarts with --exclude; nothing is written to the vault), and they are hidden from results.")
			.addTextArea((text) => {
				text.inputEl.rows = 4;
				area = text.inputEl;
				text.setPlaceholder("Templates/").setValue(s.excluded.join("\n"));
				// Not on every keystroke: each change restarts the sidecar and reindexes.
				text.inputEl.addEventListener("change", () => {
					const next = parsePatternList(text.getValue());
					if (next.join("\n") !== this.host.settings().excluded.join("\n")) save(this.host, { excluded: next });
				});
			})
			.addButton((button) =>
				button.setButtonText("Add folder…").onClick(() => {
					new FolderPicker(this.app, (folder) => {
						const next = [...new Set([...this.host.settings().excluded, `${folder}/`])];
						if (area) area.value = next.join("\n");
						save(this.host, { excluded: next });
					}).open();
				}),
			);
		const sidecar = this.host.status?.get().index.status?.exclude ?? null;
		const obsidian = this.host.obsidianExcludes?.() ?? [];
		const list = containerEl.createDiv({ cls: "vaultheat-exclusions setting-item-description" });
		const row = (title: string, items: readonly string[] | null, none: string): void => {
			const el = list.createDiv({ cls: "vaultheat-exclusions-row" });
			el.createSpan({ cls: "vaultheat-exclusions-title", text: `${title}: ` });
			el.createSpan({ text: items === null ? "unknown (not connected)" : items.length ? items.join(", ") : none });
		};
		row("In effect in the sidecar's index", sidecar, "none");
		row("Obsidian's Excluded files (Files and links; the sidecar honours them too)", obsidian, "none");
	}
}

/**
 * The slider's value, shown once: Obsidian 1.13 shows it inline and takes a formatter
 * (`setDisplayFormat`; `setDynamicTooltip` is deprecated); older apps (minAppVersion is 1.7.2)
 * get a label of our own beside the slider.
 */
function showValue(setting: Setting, slider: SliderComponent, initial: number, format: (value: number) => string): void {
	if (requireApiVersion("1.13.0")) {
		slider.setDisplayFormat(format);
		return;
	}
	const label = setting.controlEl.createSpan({ cls: "vaultheat-slider-value", text: format(initial) });
	setting.controlEl.prepend(label);
	slider.sliderEl.addEventListener("input", () => label.setText(format(Number(slider.sliderEl.value))));
}

function save(host: SettingsHost, patch: Partial<VaultheatSettings>): void {
	void host.saveSettings(patch);
}

/** A list of the vault's folders to pick one from. */
class FolderPicker extends Modal {
	constructor(
		app: App,
		private readonly pick: (folder: string) => void,
	) {
		super(app);
	}
	onOpen(): void {
		this.setTitle("Exclude a folder");
		const folders = this.app.vault
			.getAllLoadedFiles()
			.filter((f): f is TFolder => f instanceof TFolder && f.path !== "/" && f.path !== "")
			.map((f) => f.path)
			.sort((a, b) => a.localeCompare(b));
		const list = this.contentEl.createDiv({ cls: "vaultheat-folder-picker" });
		if (folders.length === 0) list.createDiv({ cls: "vaultheat-muted", text: "This vault has no folders." });
		for (const folder of folders) {
			list.createEl("button", { cls: "vaultheat-folder-option", text: folder, attr: { type: "button" } }).addEventListener("click", () => {
				this.close();
				this.pick(folder);
			});
		}
	}
	onClose(): void {
		this.contentEl.empty();
	}
}
