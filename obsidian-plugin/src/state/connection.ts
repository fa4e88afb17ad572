/**
 * Keeps the plugin connected to the sidecar: find it (settings, then the discovery file), check
 * its health and the token, follow its events, and try again with backoff when it goes away.
 *
 * One attempt at a time: `connect()` supersedes a running attempt through an epoch counter, so
 * a late answer from an old attempt never flips the state back. When auto-start is on and
 * nothing answers, the sidecar is started once per `connect()` and polled quickly while its
 * model loads; if the process dies, the attempt stops and the error state shows its output.
 * Without an event stream (or while it is down) the status is polled instead.
 */
import type { VaultheatClient } from "../api/client";
import { type ResolvedEndpoint, resolveEndpoint } from "../api/discovery";
import { ApiError, toApiError } from "../api/errors";
import type { EventStream, EventStreamOpener } from "../api/events";
import type { DiscoveryDoc } from "../api/types";
import { backoffDelay, RECONNECT, STARTUP } from "./backoff";
import type { Clock } from "./clock";
import {
	type AppStatus,
	applyServerEvent,
	applyStatusDoc,
	type ConnectionPhase,
	type ConnectionState,
	parseServerEvent,
} from "./status";
import type { Store } from "./store";

export interface SidecarControl {
	/** Whether a sidecar we can stop runs (one we started, or one we adopted). */
	running(): boolean;
	/** Starts the process; resolves false when it could not (missing command, spawn error). */
	start(): Promise<boolean>;
	/** True while the sidecar restarts by itself after a crash, or gave up: do not start one. */
	autoStartHeld?(): boolean;
}

export interface ConnectionDeps {
	client: VaultheatClient;
	events: EventStreamOpener | null;
	readDiscovery: () => Promise<DiscoveryDoc | null>;
	settings: () => { serverUrl: string; token: string; autoStart: boolean };
	/** Where the client sends requests; updated on every attempt. */
	setEndpoint: (endpoint: ResolvedEndpoint) => void;
	sidecar: SidecarControl | null;
	store: Store<AppStatus>;
	clock: Clock;
	random?: () => number;
	/** This vault's id (sha256 of its resolved path, 16 hex); null = do not check. */
	vaultId?: string | null;
	/** Called when a server for this vault answers (with the discovery file that named it). */
	onServer?: (server: { url: string; token: string; discovery: DiscoveryDoc | null }) => void;
	/** Called when nothing answers any more. */
	onUnreachable?: () => void;
	/** True where no server can be found without an address in settings (mobile): then wait for one. */
	needsAddress?: () => boolean;
}

/** `ConnectionState.message` while no address is set where one is needed. */
export const NO_ADDRESS = "No server address is set.";

/** The server answers, but for another vault (two vaults open side by side). */
export const OTHER_VAULT = "other_vault";

/** How long to keep polling a sidecar we started before calling it offline. */
const STARTUP_LIMIT_MS = 180000;
/** Status polling while no event stream is open. */
const POLL_MS = 5000;

export class ConnectionManager {
	private readonly deps: ConnectionDeps;
	private epoch = 0;
	private attempt = 0;
	private timer: number | null = null;
	private stream: EventStream | null = null;
	/** The stage of the last progress event of the run in progress (null between runs). */
	private stage: string | null = null;
	private startedAt: number | null = null;
	private disposed = false;
	/**
	 * Whether this run of attempts may start the sidecar (with auto-start on): every retry, not
	 * only the first try, so a sidecar that goes away later (a plugin update stopped the old
	 * one while the new one connected to it) is started again. False after the user stopped it.
	 */
	private mayAutoStart = true;

	constructor(deps: ConnectionDeps) {
		this.deps = deps;
	}

	get state(): ConnectionState {
		return this.deps.store.get().connection;
	}

	/**
	 * Starts over: re-reads settings and the discovery file, then connects. `autoStart: false`
	 * (after the user stopped the sidecar) does not start one even when auto-start is on.
	 */
	connect(options: { autoStart?: boolean } = {}): void {
		if (this.disposed) return;
		this.attempt = 0;
		this.startedAt = null;
		this.mayAutoStart = options.autoStart ?? true;
		this.closeStream();
		if (this.deps.needsAddress?.()) {
			// Nothing to try until the user types an address (settingsChanged connects again).
			this.epoch++;
			this.clearTimer();
			this.setConnection({ phase: "offline", url: "", tokenSource: "none", message: NO_ADDRESS, retryAt: null, live: false });
			return;
		}
		this.setConnection({ phase: "connecting", message: null, retryAt: null });
		void this.tryOnce(++this.epoch, this.mayAutoStart);
	}

	/** Starts the sidecar (from a button), then connects to it. */
	async startSidecar(): Promise<void> {
		const sidecar = this.deps.sidecar;
		if (!sidecar || this.disposed) return;
		const epoch = ++this.epoch;
		this.clearTimer();
		this.closeStream();
		this.attempt = 0;
		this.mayAutoStart = true;
		this.setConnection({ phase: "starting", message: null, retryAt: null });
		const ok = await sidecar.start();
		if (epoch !== this.epoch) return;
		if (!ok) {
			this.setConnection({ phase: "offline", message: "The sidecar could not be started.", retryAt: null });
			return;
		}
		this.startedAt = this.deps.clock.now();
		void this.tryOnce(epoch, false);
	}

	/** Our sidecar was started again by itself (after a crash): poll it while it loads, as after a start. */
	sidecarRestarted(): void {
		if (this.disposed) return;
		const epoch = ++this.epoch;
		this.clearTimer();
		this.closeStream();
		this.attempt = 0;
		this.startedAt = this.deps.clock.now();
		this.setConnection({ phase: "starting", message: null, retryAt: null });
		void this.tryOnce(epoch, false);
	}

	dispose(): void {
		this.disposed = true;
		this.epoch++;
		this.clearTimer();
		this.closeStream();
	}

	private async tryOnce(epoch: number, mayAutoStart: boolean): Promise<void> {
		this.clearTimer();
		const { client } = this.deps;
		let discovery: DiscoveryDoc | null = null;
		try {
			discovery = await this.deps.readDiscovery();
		} catch {
			discovery = null;
		}
		if (epoch !== this.epoch) return;
		const endpoint = resolveEndpoint(this.deps.settings(), discovery);
		this.deps.setEndpoint(endpoint);
		this.setConnection({ url: endpoint.url, tokenSource: endpoint.tokenSource });

		let version: string;
		try {
			const health = await client.health();
			version = health.version;
			const mine = this.deps.vaultId ?? null;
			if (mine && health.vault_id && health.vault_id !== mine) {
				throw new ApiError(
					"http",
					`The sidecar at ${endpoint.url} serves another vault; this vault needs its own.`,
					0,
					OTHER_VAULT,
				);
			}
		} catch (err) {
			if (epoch !== this.epoch) return;
			return this.failed(epoch, toApiError(err), mayAutoStart);
		}
		if (epoch !== this.epoch) return;
		try {
			const status = await client.status();
			if (epoch !== this.epoch) return;
			this.attempt = 0;
			this.startedAt = null;
			this.deps.store.update((s) => ({ ...s, index: applyStatusDoc(s.index, status) }));
			this.setConnection({ phase: "online", version, message: null, retryAt: null });
			const fromFile = discovery && endpoint.tokenSource === "discovery" ? discovery : null;
			this.deps.onServer?.({ url: endpoint.url, token: endpoint.token, discovery: fromFile });
			this.openStream(epoch);
		} catch (err) {
			if (epoch !== this.epoch) return;
			this.failed(epoch, toApiError(err), false);
		}
	}

	private failed(epoch: number, error: ApiError, mayAutoStart: boolean): void {
		const { sidecar, clock } = this.deps;
		// Another vault's server at our address means ours is not running: same as nothing there.
		const unreachable = error.kind === "unreachable" || error.kind === "timeout" || error.code === OTHER_VAULT;
		if (unreachable) this.deps.onUnreachable?.();
		if (unreachable && mayAutoStart && sidecar && this.deps.settings().autoStart && !sidecar.running() && !(sidecar.autoStartHeld?.() ?? false)) {
			void this.startSidecarFor(epoch);
			return;
		}
		const starting = this.startedAt !== null && sidecar?.running() === true;
		if (starting && clock.now() - (this.startedAt ?? 0) < STARTUP_LIMIT_MS && error.code !== "forbidden") {
			// The model is still loading, or the discovery file still names the old server.
			this.schedule(epoch, backoffDelay(STARTUP, this.attempt++), "starting", null);
			return;
		}
		this.startedAt = null;
		const phase = phaseFor(error);
		const delay = backoffDelay(RECONNECT, this.attempt++, this.deps.random?.() ?? Math.random());
		this.schedule(epoch, delay, phase, error.message);
	}

	private async startSidecarFor(epoch: number): Promise<void> {
		this.setConnection({ phase: "starting", message: null, retryAt: null });
		const ok = (await this.deps.sidecar?.start()) ?? false;
		if (epoch !== this.epoch) return;
		if (!ok) {
			this.setConnection({ phase: "offline", message: "The sidecar could not be started.", retryAt: null });
			return;
		}
		this.startedAt = this.deps.clock.now();
		this.attempt = 0;
		void this.tryOnce(epoch, false);
	}

	private schedule(epoch: number, delayMs: number, phase: ConnectionPhase, message: string | null): void {
		const { clock } = this.deps;
		this.setConnection({ phase, message, retryAt: clock.now() + delayMs, live: false });
		this.timer = clock.setTimeout(() => {
			this.timer = null;
			if (epoch === this.epoch) void this.tryOnce(epoch, this.mayAutoStart);
		}, delayMs);
	}

	private openStream(epoch: number): void {
		const opener = this.deps.events;
		if (!opener) {
			this.pollStatus(epoch);
			return;
		}
		const { url, headers } = this.deps.client.eventsRequest();
		this.stream = opener.open(url, headers, {
			onOpen: () => {
				if (epoch === this.epoch) this.setConnection({ live: true });
			},
			onMessage: (name, data) => {
				if (epoch !== this.epoch) return;
				const event = parseServerEvent(name, data);
				if (event) this.deps.store.update((s) => ({ ...s, index: applyServerEvent(s.index, event) }));
				// "ready" carries notes and chunks only: fetch the whole document so vectors,
				// links, tags, edges and the model are current too.
				if (event?.name === "ready") this.refreshStatus(epoch);
				// A run's meaning phase begins once its words are in: the note counts moved
				// already, and the run's "ready" may be minutes away on a big vault.
				if (event?.name === "progress" && event.data.stage === "meaning" && this.stage !== "meaning") this.refreshStatus(epoch);
				if (event?.name === "progress") this.stage = event.data.stage;
				else if (event?.name === "ready") this.stage = null;
			},
			onClose: () => {
				if (epoch !== this.epoch) return;
				this.stream = null;
				// The server went away or dropped us: check and reconnect from scratch.
				this.setConnection({ live: false });
				this.schedule(epoch, backoffDelay(RECONNECT, this.attempt++, 0), "connecting", null);
			},
		});
	}

	/** Fetches the status document once and folds it in (after an index pass, a button). */
	refreshStatus(epoch = this.epoch): void {
		this.deps.client.status().then(
			(status) => {
				if (epoch === this.epoch) this.deps.store.update((s) => ({ ...s, index: applyStatusDoc(s.index, status) }));
			},
			() => undefined,
		);
	}

	private pollStatus(epoch: number): void {
		this.timer = this.deps.clock.setTimeout(() => {
			this.timer = null;
			if (epoch !== this.epoch) return;
			this.deps.client.status().then(
				(status) => {
					if (epoch !== this.epoch) return;
					this.deps.store.update((s) => {
						const wasIndexing = s.index.status?.state === "indexing";
						let index = applyStatusDoc(s.index, status);
						if (wasIndexing && status.state === "ready") index = { ...index, revision: index.revision + 1 };
						return { ...s, index };
					});
					this.pollStatus(epoch);
				},
				(err: unknown) => {
					if (epoch === this.epoch) this.failed(epoch, toApiError(err), false);
				},
			);
		}, POLL_MS);
	}

	private closeStream(): void {
		this.stream?.close();
		this.stream = null;
	}

	private clearTimer(): void {
		if (this.timer !== null) {
			this.deps.clock.clearTimeout(this.timer);
			this.timer = null;
		}
	}

	private setConnection(patch: Partial<ConnectionState>): void {
		this.deps.store.update((s) => ({ ...s, connection: { ...s.connection, ...patch } }));
	}
}

export function phaseFor(error: ApiError): ConnectionPhase {
	if (error.kind === "unreachable" || error.kind === "timeout") return "offline";
	if (error.kind === "protocol") return "incompatible";
	if (error.code === "unauthorized" || error.status === 401) return "unauthorized";
	if (error.code === "forbidden" || error.status === 403) return "forbidden";
	if (error.code === OTHER_VAULT) return "other-vault";
	return "offline";
}
