/**
 * Builds the plugin's services from their parts and wires them together: transport → client,
 * status store, connection manager, sidecar, related controller, change queue, and the `fix`
 * dispatcher the error states call. main.ts owns the lifecycle; this module owns the wiring,
 * so the same graph is built by the unit tests with fakes at every seam.
 *
 * Consent: until the user answers the setup card (`settings.setupDone`), nothing is started;
 * the card says what the search for `vaultheat` found. A sidecar that answers for this vault
 * but was not started by us (Obsidian relaunched, or one started in a terminal) is adopted, so
 * "Stop sidecar" (asked for by name) reaches it through `/v1/shutdown`; nothing automatic
 * (disabling the plugin, quitting, new exclusions) stops a sidecar we did not start.
 */
import { type App, Notice } from "obsidian";
import { VaultheatClient } from "./api/client";
import { DISCOVERY_PATH, discoveryFileIn, isLoopbackUrl, parseDiscovery, type ResolvedEndpoint } from "./api/discovery";
import { ApiError, toApiError } from "./api/errors";
import type { EventStreamOpener } from "./api/events";
import type { Transport } from "./api/transport";
import type { DiscoveryDoc, RelatedDoc } from "./api/types";
import { rerankFlag, type VaultheatSettings } from "./settings";
import { type SidecarManager } from "./sidecar";
import { type Ask, confirm as confirmModal } from "./views/confirm";
import { ChangeQueue } from "./state/changes";
import type { Clock } from "./state/clock";
import { ConnectionManager } from "./state/connection";
import type { FixAction } from "./state/diagnosis";
import { compileExcludes, type PathFilter } from "./state/exclude";
import { NO_SERVER, RelatedController } from "./state/related";
import { lookup, type NoteFile, SNAPSHOT_FILE } from "./state/snapshot";
import { type SnapshotFiles, SnapshotKeeper } from "./state/snapshot-keeper";
import { SearchController } from "./state/search";
import { type AppStatus, INITIAL_STATUS, type SetupState } from "./state/status";
import { Store } from "./state/store";
import type { ViewContext } from "./views/context";

export interface ServiceDeps {
	app: App;
	transport: Transport;
	events: EventStreamOpener | null;
	sidecar: SidecarManager | null;
	clock: Clock;
	vaultPath: string;
	settings: () => VaultheatSettings;
	saveSettings: (patch: Partial<VaultheatSettings>) => Promise<void>;
	openSettings: () => void;
	showStatus: () => void;
	/** Reads a file outside the vault (the discovery file of an index elsewhere); null if absent. */
	readExternal?: (absPath: string) => Promise<string | null>;
	/** This vault's id, checked against `/v1/health` (contract "health"). */
	vaultId?: string | null;
	/** Looks for an installed `vaultheat` (without running it), for the setup card. */
	detect?: () => SetupState["found"];
	/** Asks yes or no before an action that changes the whole index (a modal by default). */
	confirm?: (ask: Ask) => Promise<boolean>;
	/**
	 * No local sidecar can exist here (the mobile app): no discovery file is read, and with no
	 * server address in settings nothing is sent; related notes come from the snapshot.
	 */
	remoteOnly?: boolean;
	/** Where the related-notes snapshot's parts are read and written (the plugin's folder). */
	snapshotFiles?: SnapshotFiles;
	/** Lets the app run between two chunks of the snapshot's encoding (default: a macrotask). */
	snapshotPause?: () => Promise<void>;
	/** Keep the snapshot up to date (desktop, with the setting on); otherwise it is only read. */
	keepSnapshot?: () => boolean;
}

export interface Services {
	client: VaultheatClient;
	status: Store<AppStatus>;
	connection: ConnectionManager;
	related: RelatedController;
	changes: ChangeQueue;
	sidecar: SidecarManager | null;
	/** The related-notes snapshot (null without a place to keep it). */
	snapshot: SnapshotKeeper | null;
	/** Sync may have brought a new snapshot (data.json changed on disk): read it if so. */
	snapshotSynced(): Promise<void>;
	/**
	 * Desktop: asks once whether to keep the snapshot, when it is off and a phone opened the vault
	 * (its marker in data.json) or an older version's snapshot file is still there.
	 */
	offerSnapshot(): Promise<void>;
	excluded(): PathFilter;
	/** Call after settings changed, with the previous value. */
	settingsChanged(previous: VaultheatSettings): void;
	/** Switches `embeddings.model` to a preset and rebuilds the index (sidecar we started only). */
	changeModel(preset: "english" | "multilingual"): Promise<string>;
	fix(action: FixAction): void;
	viewContext(): ViewContext;
	/** Obsidian is quitting (it will not call onunload): stop the sidecar we started. */
	quit(): Promise<void>;
	dispose(): void;
}

/** How long to wait for an adopted sidecar to go after `/v1/shutdown`. */
const SHUTDOWN_WAIT_MS = 10000;

export function createServices(deps: ServiceDeps): Services {
	const { app, clock } = deps;
	let endpoint: ResolvedEndpoint = { url: "", token: "", tokenSource: "none" };
	const remoteOnly = deps.remoteOnly ?? false;
	/** Mobile with no address set: fail at once, without a request to a loopback nobody serves. */
	const needsAddress = (): boolean => remoteOnly && deps.settings().serverUrl.trim() === "";
	const transport: Transport = {
		request: (req) =>
			needsAddress()
				? Promise.reject(new ApiError("unreachable", "No server address is set (settings → Sidecar address).", 0, NO_SERVER))
				: deps.transport.request(req),
	};
	const client = new VaultheatClient(transport, () => endpoint);
	const status = new Store<AppStatus>(INITIAL_STATUS);
	let excluded = compileExcludes(deps.settings().excluded);
	const unsubscribers: (() => void)[] = [];

	const confirm = deps.confirm ?? ((ask: Ask) => confirmModal(app, ask));
	if (deps.sidecar) {
		const sidecar = deps.sidecar;
		unsubscribers.push(sidecar.store.subscribe((info) => status.update((s) => ({ ...s, sidecar: info }))));
		status.update((s) => ({ ...s, sidecar: sidecar.store.get() }));
	}
	if (deps.sidecar) {
		const sidecar = deps.sidecar;
		// Windows: our sidecar is asked to leave over the API before any kill (see SidecarManager.stop).
		sidecar.setShutdown(async () => {
			const doc = await readDiscovery();
			if (!doc || !isLoopbackUrl(doc.url)) throw new Error("no discovery file for the sidecar");
			await new VaultheatClient(deps.transport, () => ({ url: doc.url, token: doc.token })).shutdown();
		});
		// It restarted by itself after a crash: follow it while it loads.
		unsubscribers.push(
			sidecar.store.subscribe((next, previous) => {
				if (next.phase === "running" && previous.phase !== "running" && next.restart && !next.restart.gaveUp) connection.sidecarRestarted();
			}),
		);
	}
	const detect = (): SetupState | null => {
		if (!deps.sidecar || deps.settings().setupDone) return null;
		return { found: deps.detect?.() ?? null };
	};
	status.update((s) => ({ ...s, setup: detect() }));

	const readDiscovery = async (): Promise<DiscoveryDoc | null> => {
		// A discovery file names a loopback address on the machine that wrote it: not this one.
		if (remoteOnly) return null;
		const indexDir = deps.settings().indexDir;
		if (indexDir) {
			// An index outside the vault keeps its server.json there too.
			const text = deps.readExternal ? await deps.readExternal(discoveryFileIn(indexDir)) : null;
			return text === null ? null : parseDiscovery(text);
		}
		const adapter = app.vault.adapter;
		if (!(await adapter.exists(DISCOVERY_PATH))) return null;
		return parseDiscovery(await adapter.read(DISCOVERY_PATH));
	};

	const connection = new ConnectionManager({
		client,
		events: deps.events,
		readDiscovery,
		settings: deps.settings,
		setEndpoint: (next) => {
			endpoint = next;
		},
		sidecar: deps.sidecar,
		store: status,
		clock,
		vaultId: deps.vaultId ?? null,
		needsAddress,
		// Only a server named by this vault's discovery file: one reached through an address and
		// token typed in settings is the user's to run.
		onServer: (server) => {
			if (server.discovery) adopt(server.url, server.token, server.discovery.pid || null);
		},
		onUnreachable: () => deps.sidecar?.release(),
	});

	/** A sidecar for this vault answers that we did not start: stop and restart must reach it. */
	const adopt = (url: string, token: string, pid: number | null): void => {
		const sidecar = deps.sidecar;
		if (!sidecar || sidecar.owns()) return;
		const shutdownClient = new VaultheatClient(deps.transport, () => ({ url, token }));
		sidecar.adopt({
			pid,
			shutdown: async () => {
				await shutdownClient.shutdown();
				// Wait until it is gone, so a start that follows does not meet its lock.
				const until = clock.now() + SHUTDOWN_WAIT_MS;
				while (clock.now() < until) {
					try {
						await shutdownClient.health();
					} catch {
						return;
					}
					await new Promise<void>((resolve) => clock.setTimeout(resolve, 250));
				}
			},
		});
	};

	const snapshot = deps.snapshotFiles ? newKeeper(deps, client, () => excluded) : null;
	const keep = (): boolean => snapshot !== null && !remoteOnly && (deps.keepSnapshot?.() ?? false);
	const mtimeOf = (path: string): number | null => app.vault.getFileByPath(path)?.stat.mtime ?? null;
	// Kept here: every part is read (to plan the next update). Only read: a note's part when asked.
	if (snapshot && keep()) void snapshot.load();
	let snapshotTimer: number | null = null;
	/** After an index pass (or coming online): update the snapshot once things settle. */
	const scheduleSnapshot = (delayMs = 3000): void => {
		if (!keep()) return;
		if (snapshotTimer !== null) clock.clearTimeout(snapshotTimer);
		snapshotTimer = clock.setTimeout(() => {
			snapshotTimer = null;
			if (status.get().connection.phase === "online" && keep()) void snapshot?.update().catch(() => undefined);
		}, delayMs);
	};
	unsubscribers.push(
		status.subscribe((next, previous) => {
			const cameOnline = next.connection.phase === "online" && previous.connection.phase !== "online";
			if (cameOnline || next.index.revision !== previous.index.revision) scheduleSnapshot();
		}),
	);

	const related = new RelatedController(
		{
			related: (request) => client.related(request),
			options: () => {
				const s = deps.settings();
				return { top: s.resultCount, debounceMs: s.debounceMs, excluding: s.excluded.length > 0, rerank: rerankFlag(s.rerank), threshold: s.threshold };
			},
			isExcluded: () => excluded,
			isHidden: (source, target) => deps.settings().hiddenSuggestions[source]?.includes(target) ?? false,
			fromSnapshot: snapshot
				? (path) => {
						// The note's part is read the first time it is asked for; the list follows.
						if (!snapshot.hasPartOf(path)) void snapshot.loadPartOf(path).then((read) => read && related.refresh(), () => undefined);
						return lookup(snapshot.snapshot, path, mtimeOf);
					}
				: undefined,
			clock,
		},
		deps.settings().unlinkedOnlyDefault,
	);

	/** Where this device only reads the snapshot (a phone): take the file a sync put there,
	 * checked when a note is opened and when sync changes the plugin's data. */
	const snapshotSynced = async (): Promise<void> => {
		if (!snapshot || keep()) return;
		if (await snapshot.reread()) related.refresh();
	};
	const fileOpened = app.workspace.on("file-open", () => void snapshotSynced());
	let offering = false;
	const offerSnapshot = async (): Promise<void> => {
		const s = deps.settings();
		if (!snapshot || !deps.snapshotFiles || remoteOnly || s.keepSnapshot || s.snapshotAsked || offering) return;
		offering = true;
		try {
			const files = deps.snapshotFiles;
			const legacy = files.stamp ? (await files.stamp(SNAPSHOT_FILE).catch(() => null)) !== null : (await files.read(SNAPSHOT_FILE).catch(() => null)) !== null;
			if (s.phoneSeen === 0 && !legacy) return;
			const why =
				s.phoneSeen > 0
					? "Vaultheat ran on a phone or tablet with this vault. There it has no model, and without a server it shows the related notes this computer keeps in a snapshot."
					: "This computer kept a related notes snapshot for Obsidian on a phone; it is now off unless you turn it on. The snapshot already written stays, but it is no longer updated.";
			const yes = await confirm({
				title: "Keep a related notes snapshot for mobile?",
				body: `${why} Kept, it is written to the plugin's folder in 32 parts (about 5 MB per 10,000 notes in all), and after each index pass only the parts whose lists changed are written again, so your sync moves only those. You can change this in settings at any time.`,
				yes: "Keep a snapshot",
			});
			await deps.saveSettings({ snapshotAsked: true, keepSnapshot: yes });
		} finally {
			offering = false;
		}
	};
	unsubscribers.push(() => app.workspace.offref(fileOpened));

	const changes = new ChangeQueue((events) => client.notesChanged(events), clock);

	const newSearch = (): SearchController =>
		new SearchController({
			search: (request) => client.search(request),
			options: () => {
				const s = deps.settings();
				return {
					top: s.resultCount,
					// No pause: the sidecar answers in milliseconds, and at most one query is in
					// flight (the newest input waits for it), so typing fast sends no backlog.
					debounceMs: 0,
					rerank: rerankFlag(s.rerank),
					excluding: s.excluded.length > 0,
					threshold: s.threshold,
				};
			},
			isExcluded: () => excluded,
			clock,
		});

	const indexCall = (call: () => Promise<unknown>, done: string): void => {
		call().then(
			() => {
				new Notice(done);
				connection.refreshStatus();
			},
			(err: unknown) => new Notice(`Vaultheat: ${toApiError(err).message}`),
		);
	};

	const rebuild = (): void => indexCall(() => client.index(true), "Vaultheat: rebuilding the index from scratch.");
	const answerSetup = async (always: boolean): Promise<void> => {
		const found = status.get().setup?.found;
		const patch: Partial<VaultheatSettings> = { setupDone: true, ...(always ? { autoStart: true } : {}) };
		if (found) Object.assign(patch, { command: found.command, pythonPath: "" });
		await deps.saveSettings(patch);
		status.update((s) => ({ ...s, setup: null }));
		await connection.startSidecar();
	};

	const fix = (action: FixAction): void => {
		switch (action) {
			case "start-sidecar":
				// asked for by name (a button, the command): that answers the setup card too
				if (status.get().setup) void answerSetup(false);
				else void connection.startSidecar();
				break;
			case "stop-sidecar":
				// Stopped means stopped: no auto-start until the user starts it again.
				void deps.sidecar?.stop().then(() => connection.connect({ autoStart: false }));
				break;
			case "setup-start":
				void answerSetup(false);
				break;
			case "setup-always":
				void answerSetup(true);
				break;
			case "setup-rescan":
				status.update((s) => ({ ...s, setup: detect() }));
				break;
			case "retry":
				connection.connect();
				related.refresh();
				break;
			case "open-settings":
				deps.openSettings();
				break;
			case "build-index":
				indexCall(() => client.index(false), "Vaultheat: indexing started.");
				break;
			case "rebuild-index": {
				const notes = status.get().index.status?.notes;
				const count = typeof notes === "number" ? `all ${notes.toLocaleString("en-US")} notes` : "every note";
				void confirm({
					title: "Rebuild the index?",
					body: `The index is built again from scratch: ${count} are read and embedded again, which takes minutes on a large vault. Search and related notes answer from the old index meanwhile.`,
					yes: "Rebuild",
				}).then((yes) => {
					if (yes) rebuild();
				});
				break;
			}
			case "pause-index":
				indexCall(() => client.pause(), "Vaultheat: indexing paused.");
				break;
			case "resume-index":
				indexCall(() => client.resume(), "Vaultheat: indexing resumed.");
				break;
			case "show-status":
				deps.showStatus();
				break;
		}
	};

	let reconnectTimer: number | null = null;
	let restartTimer: number | null = null;
	/**
	 * Restarts the sidecar we started (new --exclude or --index-dir). One we adopted (started in
	 * a terminal) is not ours to stop: the user is told to restart it.
	 */
	const restartSidecar = (): void => {
		const sidecar = deps.sidecar;
		if (!sidecar?.running()) return;
		if (!sidecar.owns()) {
			new Notice("Vaultheat: restart the sidecar you started yourself to apply this change (or stop it and let Obsidian start one).");
			return;
		}
		if (restartTimer !== null) clock.clearTimeout(restartTimer);
		restartTimer = clock.setTimeout(() => {
			restartTimer = null;
			void sidecar.stop().then(() => connection.startSidecar());
		}, 1500);
	};
	const settingsChanged = (previous: VaultheatSettings): void => {
		const next = deps.settings();
		if (next.setupDone && !previous.setupDone) status.update((s) => ({ ...s, setup: null }));
		const excludedChanged = next.excluded.join("\n") !== previous.excluded.join("\n");
		if (excludedChanged) excluded = compileExcludes(next.excluded);
		// Exclusions reach the index through `serve --exclude`: restart the sidecar we run.
		if (excludedChanged || next.indexDir !== previous.indexDir) restartSidecar();
		if (next.indexDir !== previous.indexDir && !deps.sidecar?.running()) connection.connect();
		if (next.keepSnapshot && !previous.keepSnapshot) {
			if (snapshot) void snapshot.load();
			scheduleSnapshot(0);
		}
		if (next.phoneSeen > 0 && previous.phoneSeen === 0) void offerSnapshot();
		if (next.serverUrl !== previous.serverUrl || next.token !== previous.token) {
			// Typing an address fires on every key: reconnect once the user stops.
			if (reconnectTimer !== null) clock.clearTimeout(reconnectTimer);
			reconnectTimer = clock.setTimeout(() => {
				reconnectTimer = null;
				connection.connect();
			}, 800);
		}
		if (next.unlinkedOnlyDefault !== previous.unlinkedOnlyDefault) related.setUnlinkedOnly(next.unlinkedOnlyDefault);
		if (
			next.resultCount !== previous.resultCount ||
			next.rerank !== previous.rerank ||
			next.threshold !== previous.threshold ||
			excludedChanged ||
			JSON.stringify(next.hiddenSuggestions) !== JSON.stringify(previous.hiddenSuggestions)
		) {
			related.refresh();
		}
	};

	const changeModel = async (preset: "english" | "multilingual"): Promise<string> => {
		const sidecar = deps.sidecar;
		if (!sidecar) return "Changing the model needs the desktop app (or, in a terminal: vaultheat config set embeddings.model " + preset + ").";
		const result = await sidecar.runConfigSet("embeddings.model", preset);
		if (result.code !== 0) return `The sidecar did not accept the model: ${result.output || `exit code ${result.code ?? "?"}`}`;
		await deps.saveSettings({ model: preset });
		// A new model means new vectors: restart with it, then rebuild from scratch.
		if (sidecar.running()) await sidecar.stop();
		await connection.startSidecar();
		const until = clock.now() + 180000;
		while (status.get().connection.phase !== "online" && clock.now() < until) {
			await new Promise<void>((resolve) => clock.setTimeout(resolve, 500));
		}
		if (status.get().connection.phase !== "online") return "The model is set; the sidecar did not come back yet. Rebuild the index from the status window once it is online.";
		rebuild(); // the model change was confirmed already
		return `Model set to ${preset}; rebuilding the index.`;
	};

	const context: ViewContext = {
		app,
		client,
		status,
		related,
		newSearch,
		settings: deps.settings,
		saveSettings: deps.saveSettings,
		vaultPath: deps.vaultPath,
		canSpawn: deps.sidecar !== null,
		fix,
		showStatus: deps.showStatus,
		confirm,
	};

	return {
		client,
		status,
		connection,
		related,
		changes,
		sidecar: deps.sidecar,
		snapshot,
		snapshotSynced,
		offerSnapshot,
		excluded: () => excluded,
		settingsChanged,
		changeModel,
		fix,
		viewContext: () => context,
		quit: async () => {
			await deps.sidecar?.stopOwn();
		},
		dispose: () => {
			if (reconnectTimer !== null) clock.clearTimeout(reconnectTimer);
			if (restartTimer !== null) clock.clearTimeout(restartTimer);
			if (snapshotTimer !== null) clock.clearTimeout(snapshotTimer);
			snapshot?.dispose();
			for (const unsubscribe of unsubscribers) unsubscribe();
			connection.dispose();
			related.dispose();
			changes.dispose();
		},
	};
}

/** The snapshot keeper over the client: /v1/related/batch, or one /v1/related per note on an older server. */
function newKeeper(deps: ServiceDeps, client: VaultheatClient, excluded: () => PathFilter): SnapshotKeeper {
	let batchMissing = false;
	const one = async (path: string, top: number): Promise<{ path: string; results: RelatedDoc["results"] } | null> => {
		try {
			return { path, results: (await client.related({ path, top })).results };
		} catch (err) {
			if (toApiError(err).code === "not_found") return null;
			throw err;
		}
	};
	return new SnapshotKeeper({
		relatedMany: async (paths, top) => {
			if (!batchMissing) {
				try {
					const doc = await client.relatedBatch({ paths, top });
					return { notes: doc.notes, missing: doc.missing };
				} catch (err) {
					// The batch never answers 404 for a note (those are `missing`): no such route.
					if (toApiError(err).status !== 404) throw err;
					batchMissing = true;
				}
			}
			const answers: ({ path: string; results: RelatedDoc["results"] } | null)[] = [];
			for (const path of paths) answers.push(await one(path, top));
			return { notes: answers.filter((a): a is { path: string; results: RelatedDoc["results"] } => a !== null), missing: paths.filter((_, i) => answers[i] === null) };
		},
		listNotes: (): NoteFile[] => {
			const skip = excluded();
			return deps.app.vault
				.getMarkdownFiles()
				.filter((f) => !skip(f.path))
				.map((f) => ({ path: f.path, mtime: f.stat.mtime }));
		},
		exists: (path) => deps.app.vault.getAbstractFileByPath(path) !== null,
		files: deps.snapshotFiles!,
		clock: deps.clock,
		pause: deps.snapshotPause,
	});
}
