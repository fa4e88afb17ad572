/**
 * What the views may use, and nothing more: stores to render, controllers to dispatch to, and
 * the client for the two views that fetch on demand (explain, status). Views never see the
 * plugin object (omnisearch's "pass the plugin everywhere" is what STYLE.md warns against).
 */
import type { App } from "obsidian";
import type { VaultheatClient } from "../api/client";
import type { VaultheatSettings } from "../settings";
import type { FixAction } from "../state/diagnosis";
import type { RelatedController } from "../state/related";
import type { SearchController } from "../state/search";
import type { AppStatus } from "../state/status";
import type { Store } from "../state/store";
import type { Ask } from "./confirm";

export const VIEW_TYPE_RELATED = "vaultheat-related";

export interface ViewContext {
	app: App;
	client: VaultheatClient;
	status: Store<AppStatus>;
	related: RelatedController;
	newSearch: () => SearchController;
	settings: () => VaultheatSettings;
	saveSettings: (patch: Partial<VaultheatSettings>) => Promise<void>;
	/** Absolute vault folder, for the commands we show ("vaultheat serve --vault ..."). */
	vaultPath: string;
	/** Whether this platform can start the sidecar itself. */
	canSpawn: boolean;
	/** Runs a fix from an error state (start the sidecar, open settings, build the index...). */
	fix: (action: FixAction) => void;
	/** Opens the status modal. */
	showStatus: () => void;
	/** Yes or no before an action that changes the whole index. */
	confirm: (ask: Ask) => Promise<boolean>;
}
