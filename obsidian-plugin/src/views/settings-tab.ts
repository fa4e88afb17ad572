/**
 * The settings tab: every option with a one-line description. Values are saved as they change;
 * main.ts decides what a change means (reconnect, re-query, restart the sidecar).
 */
import { type App, type Plugin, PluginSettingTab, Setting } from "obsidian";
import { DEFAULT_URL, DISCOVERY_PATH } from "../api/discovery";
import { LIMITS, parsePatternList, type RerankMode, type VaultheatSettings } from "../settings";
import type { FixAction } from "../state/diagnosis";

export interface SettingsHost {
	settings(): VaultheatSettings;
	saveSettings(patch: Partial<VaultheatSettings>): Promise<void>;
	fix(action: FixAction): void;
	canSpawn: boolean;
}

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
		new Setting(containerEl)
			.setName("Sidecar address")
			.setDesc(`Leave empty to use the address in ${DISCOVERY_PATH}, else ${DEFAULT_URL}.`)
			.addText((text) =>
				text
					.setPlaceholder(DEFAULT_URL)
					.setValue(s.serverUrl)
					.onChange((value) => save({ serverUrl: value.trim() })),
			);
		new Setting(containerEl)
			.setName("Token")
			.setDesc(`Leave empty to read it from ${DISCOVERY_PATH} when the sidecar runs on this computer.`)
			.addText((text) => {
				text.inputEl.type = "password";
				text.inputEl.autocomplete = "off";
				text
					.setPlaceholder("From the discovery file")
					.setValue(s.token)
					.onChange((value) => save({ token: value.trim() }));
			})
			.addButton((button) => button.setButtonText("Reconnect").onClick(() => this.host.fix("retry")));

		new Setting(containerEl).setName("Sidecar").setHeading();
		if (!this.host.canSpawn) {
			containerEl.createDiv({ cls: "setting-item-description", text: "Starting the sidecar from Obsidian needs the desktop app." });
		}
		new Setting(containerEl)
			.setName("Start automatically")
			.setDesc("Start the sidecar when Obsidian opens this vault and none is running; stop it on quit.")
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

		new Setting(containerEl).setName("Results").setHeading();
		new Setting(containerEl)
			.setName("Result count")
			.setDesc("How many related notes and search results to show.")
			.addSlider((slider) =>
				slider
					.setLimits(LIMITS.resultCount.min, LIMITS.resultCount.max, 1)
					.setValue(s.resultCount)
					.onChange((value) => save({ resultCount: value })),
			);
		new Setting(containerEl)
			.setName("Typing pause")
			.setDesc("Milliseconds without typing before related notes refresh; search waits about half as long.")
			.addSlider((slider) =>
				slider
					.setLimits(LIMITS.debounceMs.min, 2000, 50)
					.setValue(Math.min(2000, s.debounceMs))
					.onChange((value) => save({ debounceMs: value })),
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
		new Setting(containerEl)
			.setName("Excluded folders and patterns")
			.setDesc("One per line: a folder (templates/) or a glob (**/drafts/*.md). Hidden from results and not sent to the index.")
			.addTextArea((area) => {
				area.inputEl.rows = 4;
				area
					.setPlaceholder("Templates/")
					.setValue(s.excluded.join("\n"))
					.onChange((value) => save({ excluded: parsePatternList(value) }));
			});
	}
}
