import { describe, expect, it } from "vitest";
import { VaultheatClient } from "../../src/api/client";
import type { ResolvedEndpoint } from "../../src/api/discovery";
import type { EventStreamHandlers, EventStreamOpener } from "../../src/api/events";
import type { DiscoveryDoc } from "../../src/api/types";
import { ConnectionManager, type SidecarControl } from "../../src/state/connection";
import { type AppStatus, INITIAL_STATUS } from "../../src/state/status";
import { Store } from "../../src/state/store";
import { apiError, FakeTransport, json, ManualClock, statusDoc } from "../helpers";

const health = () => json(200, { schema: "vaultheat.health.v1", status: "ok", version: "0.1.0", state: "ready" });

class FakeEvents implements EventStreamOpener {
	opened: { url: string; headers: Record<string, string>; handlers: EventStreamHandlers; closed: boolean }[] = [];
	open(url: string, headers: Record<string, string>, handlers: EventStreamHandlers) {
		const entry = { url, headers, handlers, closed: false };
		this.opened.push(entry);
		return { close: () => void (entry.closed = true) };
	}
	get last() {
		return this.opened[this.opened.length - 1]!;
	}
}

function setup(opts: { discovery?: DiscoveryDoc | null; autoStart?: boolean; sidecar?: SidecarControl | null; events?: boolean; vaultId?: string } = {}) {
	const clock = new ManualClock();
	const transport = new FakeTransport().on("GET /v1/health", health).on("GET /v1/status", () => json(200, statusDoc()));
	let endpoint: ResolvedEndpoint = { url: "", token: "", tokenSource: "none" };
	const client = new VaultheatClient(transport, () => endpoint);
	const store = new Store<AppStatus>(INITIAL_STATUS);
	const events = new FakeEvents();
	const settings = { serverUrl: "", token: "", autoStart: opts.autoStart ?? false };
	let discovery = opts.discovery === undefined ? { url: "http://127.0.0.1:40000", token: "tok", host: "", port: 40000, pid: 1, vault: "", started_at: "" } : opts.discovery;
	const manager = new ConnectionManager({
		client,
		events: opts.events === false ? null : events,
		readDiscovery: async () => discovery,
		settings: () => settings,
		setEndpoint: (e) => {
			endpoint = e;
		},
		sidecar: opts.sidecar ?? null,
		store,
		clock,
		random: () => 0,
		vaultId: opts.vaultId ?? null,
	});
	return {
		clock,
		transport,
		store,
		events,
		manager,
		settings,
		conn: () => store.get().connection,
		setDiscovery: (d: DiscoveryDoc | null) => {
			discovery = d;
		},
	};
}

describe("ConnectionManager", () => {
	it("does not take another vault's sidecar for its own: it starts this vault's", async () => {
		let starts = 0;
		let running = false;
		const sidecar: SidecarControl = {
			running: () => running,
			start: async () => {
				starts++;
				running = true;
				return true;
			},
		};
		const { transport, manager, conn, clock, setDiscovery } = setup({ autoStart: true, sidecar, vaultId: "aaaaaaaaaaaaaaaa", discovery: null });
		let served = "bbbbbbbbbbbbbbbb";
		transport.on("GET /v1/health", () => json(200, { schema: "vaultheat.health.v1", status: "ok", version: "0.1.0", state: "ready", vault_id: served }));
		manager.connect();
		await clock.advance(0);
		expect(starts).toBe(1);
		expect(conn().phase).toBe("starting");
		// Our sidecar publishes its own (free) port; the health check now names this vault.
		setDiscovery({ url: "http://127.0.0.1:40001", token: "mine", host: "", port: 40001, pid: 2, vault: "", started_at: "" });
		served = "aaaaaaaaaaaaaaaa";
		await clock.advance(1000);
		expect(conn()).toMatchObject({ phase: "online", url: "http://127.0.0.1:40001" });
	});

	it("says so when another vault's sidecar answers and none may be started", async () => {
		const { transport, manager, conn, clock } = setup({ vaultId: "aaaaaaaaaaaaaaaa" });
		transport.on("GET /v1/health", () => json(200, { schema: "vaultheat.health.v1", status: "ok", version: "0.1.0", state: "ready", vault_id: "bbbbbbbbbbbbbbbb" }));
		manager.connect();
		await clock.advance(0);
		expect(conn().phase).toBe("other-vault");
		expect(conn().message).toContain("serves another vault");
		expect(transport.requests.filter((r) => r.req.url.endsWith("/v1/status"))).toHaveLength(0);
	});

	it("reloads the whole status after an index pass (vectors, links, tags, edges, model)", async () => {
		const { transport, events, manager, store, clock } = setup();
		manager.connect();
		await clock.advance(0);
		transport.on("GET /v1/status", () => json(200, statusDoc({ notes: 13, vectors: 40, tags: 7, edges: { similar: 9, link: 5, tag: 3 } })));
		events.last.handlers.onMessage("ready", JSON.stringify({ notes: 13, chunks: 40 }));
		await clock.advance(0);
		expect(store.get().index.status).toMatchObject({ notes: 13, vectors: 40, tags: 7, edges: { similar: 9, link: 5, tag: 3 } });
	});

	it("reloads the status when a run's meaning phase begins: its words, and the note counts, are in", async () => {
		const { transport, events, manager, store, clock } = setup();
		manager.connect();
		await clock.advance(0);
		const statusCalls = () => transport.requests.filter((r) => r.req.url.endsWith("/v1/status")).length;
		const before = statusCalls();
		transport.on("GET /v1/status", () => json(200, statusDoc({ state: "indexing", notes: 14 })));
		events.last.handlers.onMessage("progress", JSON.stringify({ stage: "index", done: 1, total: 1, rate: null, eta_s: null }));
		await clock.advance(0);
		expect(statusCalls()).toBe(before);
		events.last.handlers.onMessage("progress", JSON.stringify({ stage: "meaning", done: 0, total: 900, rate: null, eta_s: null }));
		await clock.advance(0);
		expect(statusCalls()).toBe(before + 1);
		expect(store.get().index.status?.notes).toBe(14);
		// the phase's later progress asks for nothing more
		events.last.handlers.onMessage("progress", JSON.stringify({ stage: "meaning", done: 256, total: 900, rate: 30, eta_s: 21 }));
		await clock.advance(0);
		expect(statusCalls()).toBe(before + 1);
	});

	it("connects with the discovery address and token, loads the status and opens the event stream", async () => {
		const { transport, events, manager, conn, store, clock } = setup();
		manager.connect();
		await clock.advance(0);
		expect(conn()).toMatchObject({ phase: "online", url: "http://127.0.0.1:40000", tokenSource: "discovery", version: "0.1.0" });
		expect(store.get().index.status?.notes).toBe(12);
		expect(transport.requests[1]?.req.headers.Authorization).toBe("Bearer tok");
		expect(events.last.url).toBe("http://127.0.0.1:40000/v1/events");
		expect(events.last.headers.Authorization).toBe("Bearer tok");
		events.last.handlers.onOpen();
		expect(conn().live).toBe(true);
	});

	it("folds events into the index state", async () => {
		const { events, manager, store, clock } = setup();
		manager.connect();
		await clock.advance(0);
		events.last.handlers.onMessage("progress", JSON.stringify({ stage: "embed", done: 2, total: 5, rate: 1, eta_s: 3 }));
		expect(store.get().index.progress?.done).toBe(2);
		events.last.handlers.onMessage("ready", JSON.stringify({ notes: 13, chunks: 81 }));
		events.last.handlers.onMessage("nonsense", "{}");
		expect(store.get().index).toMatchObject({ revision: 1, status: { notes: 13 } });
	});

	it("retries with growing delays while the sidecar is down, then recovers", async () => {
		const { transport, manager, conn, clock } = setup();
		transport.unreachable = true;
		manager.connect();
		await clock.advance(0);
		expect(conn()).toMatchObject({ phase: "offline", retryAt: 1000 });
		await clock.advance(1000);
		expect(conn().retryAt).toBe(1000 + 2000);
		await clock.advance(2000);
		expect(conn().retryAt).toBe(3000 + 4000);
		const healthCalls = transport.requests.length;
		expect(healthCalls).toBe(3);
		transport.unreachable = false;
		await clock.advance(4000);
		expect(conn().phase).toBe("online");
		expect(clock.pending).toBe(0);
	});

	it("reports a refused token as unauthorized and keeps trying (the sidecar may restart with a new one)", async () => {
		const { transport, manager, conn, clock, setDiscovery } = setup();
		transport.on("GET /v1/status", (req) => (req.headers.Authorization === "Bearer new" ? json(200, statusDoc()) : apiError(401, "unauthorized")));
		manager.connect();
		await clock.advance(0);
		expect(conn().phase).toBe("unauthorized");
		setDiscovery({ url: "http://127.0.0.1:40000", token: "new", host: "", port: 0, pid: 2, vault: "", started_at: "" });
		await clock.advance(1000);
		expect(conn().phase).toBe("online");
	});

	it.each([
		["forbidden", apiError(403, "forbidden"), "forbidden"],
		["wrong schema", json(200, { schema: "vaultheat.status.v9" }), "incompatible"],
	])("maps %s to its phase", async (_n, response, phase) => {
		const { transport, manager, conn, clock } = setup();
		transport.on("GET /v1/status", () => response);
		manager.connect();
		await clock.advance(0);
		expect(conn().phase).toBe(phase);
	});

	it("reconnects when the event stream ends", async () => {
		const { events, manager, conn, clock } = setup();
		manager.connect();
		await clock.advance(0);
		events.last.handlers.onClose(new Error("gone"));
		expect(conn()).toMatchObject({ phase: "connecting", live: false });
		await clock.advance(1000);
		expect(conn().phase).toBe("online");
		expect(events.opened).toHaveLength(2);
	});

	it("polls the status when no event stream is available, and bumps the revision when a pass ends", async () => {
		const { transport, manager, store, clock } = setup({ events: false });
		transport.on("GET /v1/status", () => json(200, statusDoc({ state: "indexing" })));
		manager.connect();
		await clock.advance(0);
		transport.on("GET /v1/status", () => json(200, statusDoc({ state: "ready", notes: 20 })));
		await clock.advance(5000);
		expect(store.get().index).toMatchObject({ revision: 1, status: { notes: 20 } });
	});

	it("auto-starts the sidecar once when nothing answers, then polls quickly until it is up", async () => {
		let running = false;
		let starts = 0;
		const sidecar: SidecarControl = {
			running: () => running,
			start: async () => {
				starts++;
				running = true;
				return true;
			},
		};
		const { transport, manager, conn, clock } = setup({ autoStart: true, sidecar });
		transport.unreachable = true;
		manager.connect();
		await clock.advance(0);
		expect(starts).toBe(1);
		expect(conn().phase).toBe("starting");
		await clock.advance(250);
		expect(conn()).toMatchObject({ phase: "starting", retryAt: 250 + 375 });
		transport.unreachable = false;
		await clock.advance(375);
		expect(conn().phase).toBe("online");
		expect(starts).toBe(1);
	});

	it("stops waiting when the started sidecar dies", async () => {
		let running = true;
		const sidecar: SidecarControl = { running: () => running, start: async () => true };
		const { transport, manager, conn, clock } = setup({ sidecar });
		transport.unreachable = true;
		await manager.startSidecar();
		await clock.advance(0);
		expect(conn().phase).toBe("starting");
		running = false;
		await clock.advance(250);
		expect(conn().phase).toBe("offline");
	});

	it("after a plugin update, a retry starts the sidecar once the old one (it connected to) has gone", async () => {
		// Obsidian unloads the old plugin (which stops its sidecar) while the new one loads: the
		// first try still finds the old server, which then goes away.
		let running = false;
		let starts = 0;
		const sidecar: SidecarControl = {
			running: () => running,
			start: async () => {
				starts++;
				running = true;
				return true;
			},
		};
		const { transport, events, manager, conn, clock } = setup({ autoStart: true, sidecar });
		manager.connect();
		await clock.advance(0);
		expect(conn().phase).toBe("online");
		expect(starts).toBe(0);
		transport.unreachable = true;
		events.last.handlers.onClose(new Error("gone"));
		await clock.advance(1000);
		expect(starts).toBe(1);
		expect(conn().phase).toBe("starting");
		transport.unreachable = false;
		await clock.advance(250);
		expect(conn().phase).toBe("online");
	});

	it("retries start nothing after the user stopped the sidecar, nor while it restarts by itself", async () => {
		let starts = 0;
		let held = false;
		const sidecar: SidecarControl = {
			running: () => false,
			start: async () => {
				starts++;
				return false;
			},
			autoStartHeld: () => held,
		};
		const stopped = setup({ autoStart: true, sidecar });
		stopped.transport.unreachable = true;
		stopped.manager.connect({ autoStart: false });
		await stopped.clock.advance(60000);
		expect(starts).toBe(0);
		expect(stopped.conn().phase).toBe("offline");

		held = true;
		const restarting = setup({ autoStart: true, sidecar });
		restarting.transport.unreachable = true;
		restarting.manager.connect();
		await restarting.clock.advance(60000);
		expect(starts).toBe(0);
		held = false;
		await restarting.clock.advance(60000);
		expect(starts).toBe(1);
	});

	it("reports a sidecar that cannot start", async () => {
		const sidecar: SidecarControl = { running: () => false, start: async () => false };
		const { transport, manager, conn, clock } = setup({ autoStart: true, sidecar });
		transport.unreachable = true;
		manager.connect();
		await clock.advance(0);
		expect(conn()).toMatchObject({ phase: "offline", message: "The sidecar could not be started." });
	});

	it("a new connect() supersedes the running attempt; dispose() stops everything", async () => {
		const { transport, events, manager, conn, clock } = setup();
		manager.connect();
		manager.connect();
		await clock.advance(0);
		expect(conn().phase).toBe("online");
		expect(events.opened).toHaveLength(1);
		manager.dispose();
		expect(events.last.closed).toBe(true);
		transport.unreachable = true;
		manager.connect();
		await clock.advance(60000);
		expect(clock.pending).toBe(0);
	});
});
