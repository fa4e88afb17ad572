/**
 * Plugin settings: one frozen table of defaults and a loader that validates field by field.
 *
 * `loadSettings` never mutates DEFAULT_SETTINGS (dataview's Object.assign(DEFAULTS, data) bug)
 * and never trusts data.json: a value of the wrong type or out of range falls back to its
 * default, so a hand-edited or older settings file cannot break the plugin.
 */

import type { RelevanceThreshold } from "./state/relevance";

export type RerankMode = "server" | "on" | "off";
/** `embeddings.model` presets (contract "model presets"); "server" leaves the config alone. */
export type ModelPreset = "server" | "english" | "multilingual";

export interface VaultheatSettings {
	/** Sidecar address; empty = the one in the discovery file, else the default port. */
	serverUrl: string;
	/** Bearer token; empty = read from the discovery file. */
	token: string;
	/** Start this vault's sidecar whenever none answers: off until the user says so. */
	autoStart: boolean;
	/** The vaultheat executable (a name on PATH or a full path). */
	command: string;
	/** When set, the sidecar starts as `<pythonPath> -m vaultheat.cli serve ...` instead. */
	pythonPath: string;
	resultCount: number;
	debounceMs: number;
	unlinkedOnlyDefault: boolean;
	/** Folders or globs (vault-relative) hidden from results and not forwarded as changes. */
	excluded: string[];
	rerank: RerankMode;
	/** Keep the index outside the vault (synced vaults): passed as `--index-dir`. */
	indexDir: string;
	/** "Use at most N cores while indexing": passed as `--index-cpus`; 0 = the sidecar's default. */
	indexCores: number;
	/** "Hide weak matches": which relevance labels are listed. */
	threshold: RelevanceThreshold;
	/** The model preset asked for; a change needs a rebuild, started from the plugin. */
	model: ModelPreset;
	/**
	 * Whether the user answered the setup card (Start, or Always start automatically). Until
	 * then the plugin starts nothing: it only shows what it found and how to install it.
	 */
	setupDone: boolean;
	/**
	 * Keep the related-notes snapshot in the plugin's folder up to date (desktop): what the
	 * mobile app shows when no server answers. Off until the user turns it on (settings, or the
	 * question the desktop asks once a phone opened the vault); data.json from a version that had
	 * it on by default (no `snapshotAsked` in it) loads with it off, and the desktop asks once.
	 */
	keepSnapshot: boolean;
	/** The desktop asked whether to keep the snapshot, or the user set it in settings: not asked again. */
	snapshotAsked: boolean;
	/** When the plugin first ran on a phone or tablet with this vault (epoch ms; 0: never). Written there once. */
	phoneSeen: number;
	/** Related notes the user hid, by source note: source path → hidden target paths. */
	hiddenSuggestions: Record<string, string[]>;
}

export const DEFAULT_SETTINGS: Readonly<VaultheatSettings> = Object.freeze({
	serverUrl: "",
	token: "",
	autoStart: false,
	command: "vaultheat",
	pythonPath: "",
	resultCount: 10,
	debounceMs: 500,
	unlinkedOnlyDefault: false,
	excluded: Object.freeze([]) as unknown as string[],
	rerank: "server",
	indexDir: "",
	indexCores: 0,
	threshold: "all",
	model: "server",
	setupDone: false,
	keepSnapshot: false,
	snapshotAsked: false,
	phoneSeen: 0,
	hiddenSuggestions: Object.freeze({}) as Record<string, string[]>,
});

export const LIMITS = {
	resultCount: { min: 1, max: 50 },
	debounceMs: { min: 100, max: 2000 },
	indexCores: { min: 0, max: 256 },
} as const;

function str(value: unknown, fallback: string): string {
	return typeof value === "string" ? value : fallback;
}

function bool(value: unknown, fallback: boolean): boolean {
	return typeof value === "boolean" ? value : fallback;
}

function int(value: unknown, fallback: number, range: { min: number; max: number }): number {
	if (typeof value !== "number" || !Number.isFinite(value)) return fallback;
	return Math.min(range.max, Math.max(range.min, Math.round(value)));
}

/** A fresh settings object from whatever loadData() returned (null on first run). */
export function loadSettings(raw: unknown): VaultheatSettings {
	const data = raw && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
	const d = DEFAULT_SETTINGS;
	const excluded = Array.isArray(data.excluded)
		? data.excluded.filter((p): p is string => typeof p === "string" && p.trim() !== "").map((p) => p.trim())
		: [...d.excluded];
	const rerank = data.rerank === "on" || data.rerank === "off" || data.rerank === "server" ? data.rerank : d.rerank;
	const threshold = data.threshold === "good" || data.threshold === "strong" || data.threshold === "all" ? data.threshold : d.threshold;
	const model = data.model === "english" || data.model === "multilingual" || data.model === "server" ? data.model : d.model;
	return {
		serverUrl: str(data.serverUrl, d.serverUrl).trim(),
		token: str(data.token, d.token).trim(),
		autoStart: bool(data.autoStart, d.autoStart),
		command: str(data.command, d.command).trim() || d.command,
		pythonPath: str(data.pythonPath, d.pythonPath).trim(),
		resultCount: int(data.resultCount, d.resultCount, LIMITS.resultCount),
		debounceMs: int(data.debounceMs, d.debounceMs, LIMITS.debounceMs),
		indexCores: int(data.indexCores, d.indexCores, LIMITS.indexCores),
		unlinkedOnlyDefault: bool(data.unlinkedOnlyDefault, d.unlinkedOnlyDefault),
		excluded,
		rerank,
		indexDir: str(data.indexDir, d.indexDir).trim(),
		threshold,
		model,
		setupDone: bool(data.setupDone, d.setupDone),
		// An older data.json (no snapshotAsked) had the snapshot on by default: off until asked.
		keepSnapshot: typeof data.snapshotAsked === "boolean" ? bool(data.keepSnapshot, d.keepSnapshot) : d.keepSnapshot,
		snapshotAsked: bool(data.snapshotAsked, d.snapshotAsked),
		phoneSeen: typeof data.phoneSeen === "number" && Number.isFinite(data.phoneSeen) && data.phoneSeen > 0 ? Math.round(data.phoneSeen) : d.phoneSeen,
		hiddenSuggestions: hiddenMap(data.hiddenSuggestions),
	};
}

function hiddenMap(value: unknown): Record<string, string[]> {
	const out: Record<string, string[]> = {};
	if (!value || typeof value !== "object" || Array.isArray(value)) return out;
	for (const [source, targets] of Object.entries(value as Record<string, unknown>)) {
		if (!Array.isArray(targets)) continue;
		const list = targets.filter((t): t is string => typeof t === "string" && t !== "");
		if (list.length > 0) out[source] = list;
	}
	return out;
}

/** `rerank` for a SearchRequest: omitted when the server's own default applies. */
export function rerankFlag(mode: RerankMode): boolean | undefined {
	return mode === "server" ? undefined : mode === "on";
}

/** One pattern per line in the settings text area. */
export function parsePatternList(text: string): string[] {
	return text
		.split(/\r?\n/)
		.map((line) => line.trim())
		.filter((line) => line !== "" && !line.startsWith("#"));
}

/**
 * The excluded patterns as the sidecar's `vault.exclude` globs: a folder ("Templates" or
 * "Templates/") becomes "Templates/**" (anchored at the vault root, as the plugin matches it);
 * a glob is passed as written.
 */
export function sidecarExcludes(patterns: readonly string[]): string[] {
	const out: string[] = [];
	for (const raw of patterns) {
		const p = raw.trim().replace(/^\/+/, "");
		if (!p) continue;
		out.push(/[*?]/.test(p) ? p.replace(/\/+$/, "") : `${p.replace(/\/+$/, "")}/**`);
	}
	return [...new Set(out)];
}
