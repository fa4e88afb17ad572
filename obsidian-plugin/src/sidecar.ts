/**
 * Starts and stops `vaultheat serve` for this vault (desktop only, and only when asked).
 *
 * The spawn function is injected (Node's child_process.spawn in Obsidian, a fake in tests), so
 * this module never imports Node itself. The process is told our pid (`--parent-pid`): Obsidian
 * does not unload plugins when it quits, so the sidecar itself exits once we are gone. A sidecar
 * we did not start but that serves this vault (found through its discovery file, e.g. after
 * Obsidian was relaunched) is *adopted*: stopping it asks it to shut down over the API. Its last
 * lines of output are kept: when it exits early, the sidebar shows why (a missing model, a
 * locked index) instead of a bare "offline". A missing executable (ENOENT) is reported as
 * `missing` so the UI can show the install command.
 */
import { backoffDelay, CRASH_RESTART, MAX_RESTARTS, STABLE_MS } from "./state/backoff";
import { type Clock, windowClock } from "./state/clock";
import type { SidecarControl } from "./state/connection";
import type { SidecarInfo } from "./state/status";
import { Store } from "./state/store";

/** A chunk of a child's output: a string, or Node's Buffer (named structurally: no Node types here). */
export type OutputChunk = string | { toString(encoding: "utf8"): string };

export interface ChildLike {
	readonly pid?: number;
	readonly exitCode: number | null;
	readonly stdout: { on(event: "data", listener: (chunk: OutputChunk) => void): unknown } | null;
	readonly stderr: { on(event: "data", listener: (chunk: OutputChunk) => void): unknown } | null;
	on(event: "error", listener: (err: Error & { code?: string }) => void): unknown;
	on(event: "exit", listener: (code: number | null, signal: string | null) => void): unknown;
	on(event: "spawn", listener: () => void): unknown;
	kill(signal?: "SIGTERM" | "SIGKILL" | number): boolean;
}

export type SpawnFn = (
	command: string,
	args: string[],
	options: { cwd: string; env: Record<string, string | undefined>; stdio: ["ignore", "pipe", "pipe"]; windowsHide: boolean },
) => ChildLike;

/**
 * What `vaultheat serve` is started with, from settings. A new serve flag (a CPU budget, say) is
 * one field here, one line in `sidecarArgv`, and one Setting in the settings tab's Sidecar
 * section; a change to it restarts the sidecar through `settingsChanged` in services.ts.
 */
export interface SidecarOptions {
	command: string;
	pythonPath: string;
	vaultPath: string;
	/** Port to ask for, from an explicit address in settings; null = a free one (`--port 0`). */
	port: number | null;
	/** `--index-dir` (an index outside the vault); "" = the default `<vault>/.vaultheat`. */
	indexDir?: string;
	/** Globs passed as `--exclude` (this run only; the sidecar writes them nowhere). */
	exclude?: readonly string[];
	/** Our own pid, passed as `--parent-pid`: the sidecar exits when this process is gone. */
	parentPid?: number | null;
	/** "Use at most N cores while indexing", passed as `--index-cpus N`; 0/absent = default. */
	indexCores?: number;
}

/** Splits a command line on spaces, keeping quoted parts ("C:\\Program Files\\x.exe" --flag). */
export function splitCommand(line: string): string[] {
	const out: string[] = [];
	const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
	for (const m of line.matchAll(re)) out.push(m[1] ?? m[2] ?? m[3] ?? "");
	return out;
}

export function sidecarArgv(options: SidecarOptions): string[] {
	const base = options.pythonPath ? [options.pythonPath, "-m", "vaultheat.cli"] : splitCommand(options.command);
	const argv = [...base, "serve", "--vault", options.vaultPath];
	// A free port: a second vault's sidecar must not collide with the first one's; the plugin
	// finds the port in the discovery file the sidecar writes.
	argv.push("--port", String(options.port ?? 0));
	if (options.parentPid) argv.push("--parent-pid", String(options.parentPid));
	if (options.indexDir) argv.push("--index-dir", options.indexDir);
	for (const glob of options.exclude ?? []) argv.push("--exclude", glob);
	if (options.indexCores && options.indexCores > 0) argv.push("--index-cpus", String(options.indexCores));
	return argv;
}

/** Python versions whose per-user install folders are searched (requires-python >= 3.11). */
const USER_PYTHONS = ["3.11", "3.12", "3.13", "3.14"];

/**
 * Where `vaultheat` is usually installed, most likely first: the command as set (a name on
 * PATH or a full path), every PATH folder, `~/.local/bin` (pip --user, pipx, uv tool), pipx's
 * and uv's own environments (and `$PIPX_HOME`), Homebrew, and pip --user's folders on macOS
 * (`~/Library/Python/3.x/bin`) and Windows (`%APPDATA%\\Python\\Python3x\\Scripts`).
 * Only checked for existence (`exists` is fs.existsSync in Obsidian): nothing is run.
 */
export function candidateCommands(
	command: string,
	env: Record<string, string | undefined>,
	platform: string,
	home: string,
): string[] {
	const win = platform === "win32";
	const sep = win ? "\\" : "/";
	const exe = win ? "vaultheat.exe" : "vaultheat";
	const join = (...parts: string[]): string => parts.filter(Boolean).join(sep);
	const out: string[] = [];
	const name = splitCommand(command)[0] ?? "";
	if (name.includes("/") || name.includes("\\")) out.push(name);
	const pathDirs = (env.PATH ?? env.Path ?? "").split(win ? ";" : ":").filter(Boolean);
	for (const dir of pathDirs) out.push(join(dir, exe));
	if (home) {
		out.push(join(home, ".local", "bin", exe));
		out.push(join(home, ".local", "pipx", "venvs", "vaultheat", win ? "Scripts" : "bin", exe));
		out.push(join(home, ".local", "share", "pipx", "venvs", "vaultheat", win ? "Scripts" : "bin", exe));
		out.push(join(home, ".local", "share", "uv", "tools", "vaultheat", win ? "Scripts" : "bin", exe));
		if (!win) out.push("/opt/homebrew/bin/vaultheat", "/usr/local/bin/vaultheat");
		if (platform === "darwin") {
			// pip --user with python.org's Python, and pipx's older macOS home
			for (const v of USER_PYTHONS) out.push(join(home, "Library", "Python", v, "bin", exe));
			out.push(join(home, "Library", "Application Support", "pipx", "venvs", "vaultheat", "bin", exe));
		}
		if (win) {
			// pipx's Windows homes (today's, then older ones), pip --user, uv tool
			out.push(join(home, "pipx", "venvs", "vaultheat", "Scripts", exe));
			out.push(join(home, ".local", "pipx", "venvs", "vaultheat", "Scripts", exe));
			if (env.LOCALAPPDATA) out.push(join(env.LOCALAPPDATA, "pipx", "venvs", "vaultheat", "Scripts", exe));
			if (env.APPDATA) {
				for (const v of USER_PYTHONS) out.push(join(env.APPDATA, "Python", `Python${v.replace(".", "")}`, "Scripts", exe));
				out.push(join(env.APPDATA, "Python", "Scripts", exe));
				out.push(join(env.APPDATA, "uv", "tools", "vaultheat", "Scripts", exe));
			}
		}
	}
	if (env.PIPX_HOME) out.push(join(env.PIPX_HOME, "venvs", "vaultheat", win ? "Scripts" : "bin", exe));
	return [...new Set(out)];
}

/** The first candidate that exists, or null. */
export function detectCommand(candidates: readonly string[], exists: (path: string) => boolean): string | null {
	for (const c of candidates) {
		try {
			if (exists(c)) return c;
		} catch {
			// unreadable folder: try the next one
		}
	}
	return null;
}

export interface FolderReader {
	realpath(path: string): string;
	readdir(path: string): string[];
}

/**
 * The version of the vaultheat installed behind `command`, read from its environment's
 * `vaultheat-X.Y.Z.dist-info` folder (pipx, uv tool and venvs all have one), so the setup card
 * can say what it found without running anything. Null when it cannot tell.
 */
export function installedVersion(command: string, fs: FolderReader, platform: string): string | null {
	const win = platform === "win32";
	const sep = win ? "\\" : "/";
	const parent = (p: string): string => p.slice(0, Math.max(0, p.lastIndexOf(sep)));
	try {
		const env = parent(parent(fs.realpath(command)));
		if (!env) return null;
		const sites = win ? [`${env}${sep}Lib${sep}site-packages`] : fs.readdir(`${env}/lib`).filter((d) => d.startsWith("python")).map((d) => `${env}/lib/${d}/site-packages`);
		for (const site of sites) {
			for (const name of fs.readdir(site)) {
				const m = /^vaultheat-([^-]+)\.dist-info$/.exec(name);
				if (m?.[1]) return m[1];
			}
		}
	} catch {
		// unreadable: the version stays unknown
	}
	return null;
}

/** The venv's vaultheat for a `.venv` folder (or a checkout holding one) the user points at. */
export function venvCommand(folder: string, platform: string): string {
	const win = platform === "win32";
	const f = folder.replace(/[\\/]+$/, "");
	const venv = /(^|[\\/])\.?venv$/.test(f) ? f : `${f}${win ? "\\" : "/"}.venv`;
	return win ? `${venv}\\Scripts\\vaultheat.exe` : `${venv}/bin/vaultheat`;
}

export function configSetArgv(options: SidecarOptions, key: string, value: string): string[] {
	const base = options.pythonPath ? [options.pythonPath, "-m", "vaultheat.cli"] : splitCommand(options.command);
	const argv = [...base, "config", "set", key, value, "--vault", options.vaultPath];
	if (options.indexDir) argv.push("--index-dir", options.indexDir);
	return argv;
}

export function quoteArgv(argv: readonly string[]): string {
	return argv.map((a) => (/[\s"']/.test(a) ? `"${a.replace(/"/g, '\\"')}"` : a)).join(" ");
}

const OUTPUT_LINES = 40;
const STOP_GRACE_MS = 3000;
/** Windows: how long to wait for the sidecar to leave after `POST /v1/shutdown` before killing it. */
const SHUTDOWN_GRACE_MS = 5000;


/** How the manager restarts and stops its own sidecar; every field has a default. */
export interface SidecarLifecycle {
	clock?: Clock;
	/** Restart a sidecar we started when it exits by itself ("Always start automatically"). */
	autoRestart?: () => boolean;
	/** process.platform: on "win32" a signal kills outright, so `shutdown` is asked first. */
	platform?: string;
}

/** A running sidecar we did not start, and how to ask it to stop (`POST /v1/shutdown`). */
export interface AdoptedSidecar {
	pid: number | null;
	/** Asks it to shut down and resolves once it is gone (or gave up waiting). */
	shutdown(): Promise<void>;
}

export class SidecarManager implements SidecarControl {
	readonly store: Store<SidecarInfo>;
	private readonly spawn: SpawnFn;
	private readonly options: () => SidecarOptions;
	private readonly env: Record<string, string | undefined>;
	private readonly clock: Clock;
	private readonly autoRestart: () => boolean;
	private readonly platform: string;
	/** Asks the sidecar we started to leave over the API (`POST /v1/shutdown`); set by the services. */
	private shutdownOwn: (() => Promise<void>) | null = null;
	private child: ChildLike | null = null;
	private adopted: AdoptedSidecar | null = null;
	private partial = "";
	/** When the current child was spawned (clock time), to tell a crash loop from a stable run. */
	private spawnedAt: number | null = null;
	/** Restarts in a row after unexpected exits; reset by a stable run or a start by hand. */
	private restarts = 0;
	private restartTimer: number | null = null;

	constructor(spawn: SpawnFn, options: () => SidecarOptions, env: Record<string, string | undefined>, lifecycle: SidecarLifecycle = {}) {
		this.spawn = spawn;
		this.options = options;
		this.env = env;
		this.clock = lifecycle.clock ?? windowClock;
		this.autoRestart = lifecycle.autoRestart ?? (() => false);
		this.platform = lifecycle.platform ?? "linux";
		this.store = new Store<SidecarInfo>({ phase: "off", commandLine: "", pid: null, exitCode: null, output: [], restart: null });
	}

	/** How to ask our own sidecar to shut down over the API (used before a kill on Windows). */
	setShutdown(shutdown: (() => Promise<void>) | null): void {
		this.shutdownOwn = shutdown;
	}

	/**
	 * Whether the connection must not start a sidecar by itself now: a restart after a crash is
	 * already scheduled, or the restarts gave up (the user starts it again by hand).
	 */
	autoStartHeld(): boolean {
		return this.restartTimer !== null || this.store.get().restart?.gaveUp === true;
	}

	/** Whether a sidecar we can stop runs: one we started, or one we adopted. */
	running(): boolean {
		return this.owns() || this.adopted !== null;
	}

	/** Whether the process we started is alive. */
	owns(): boolean {
		return this.child !== null && this.child.exitCode === null;
	}

	/** A sidecar for this vault answers that we did not start: stop/restart then go to it. */
	adopt(sidecar: AdoptedSidecar): void {
		if (this.owns()) return;
		this.adopted = sidecar;
		this.patch({ phase: "running", pid: sidecar.pid, exitCode: null });
	}

	/** The adopted sidecar went away by itself. */
	release(): void {
		if (!this.adopted) return;
		this.adopted = null;
		this.patch({ phase: "off", pid: null });
	}

	/** Starts our sidecar (a button, the setup card, auto-start): a new run of restarts. */
	start(): Promise<boolean> {
		this.cancelRestart();
		this.restarts = 0;
		if (this.store.get().restart) this.patch({ restart: null });
		return this.launch();
	}

	private launch(): Promise<boolean> {
		if (this.owns()) return Promise.resolve(true);
		this.adopted = null;
		const options = this.options();
		const argv = sidecarArgv(options);
		const [command, ...args] = argv;
		const commandLine = quoteArgv(argv);
		if (!command) {
			this.store.set({ phase: "missing", commandLine, pid: null, exitCode: null, output: ["No command is set."], restart: null });
			return Promise.resolve(false);
		}
		this.partial = "";
		this.store.set({ phase: "starting", commandLine, pid: null, exitCode: null, output: [], restart: this.store.get().restart });
		return new Promise<boolean>((resolve) => {
			let settled = false;
			const settle = (ok: boolean): void => {
				if (!settled) {
					settled = true;
					resolve(ok);
				}
			};
			let child: ChildLike;
			try {
				child = this.spawn(command, args, this.spawnOptions(options.vaultPath));
			} catch (err) {
				this.fail(err as Error & { code?: string }, commandLine);
				settle(false);
				return;
			}
			this.child = child;
			child.stdout?.on("data", (chunk) => this.capture(chunk));
			child.stderr?.on("data", (chunk) => this.capture(chunk));
			child.on("error", (err) => {
				if (this.child !== child) return;
				this.child = null;
				this.fail(err, commandLine);
				settle(false);
				// A missing executable stays missing: only a start that failed otherwise is retried.
				if (err.code !== "ENOENT") this.crashed();
			});
			child.on("spawn", () => {
				this.spawnedAt = this.clock.now();
				this.patch({ phase: "running", pid: child.pid ?? null });
				settle(true);
			});
			child.on("exit", (code) => {
				// A child we stopped is no longer `this.child`: only an unexpected exit gets here.
				if (this.child !== child) return;
				this.child = null;
				this.flushPartial();
				this.patch({ phase: "exited", exitCode: code, pid: null });
				settle(false);
				this.crashed();
			});
		});
	}

	/**
	 * Stops the process we started (SIGTERM, then SIGKILL after a grace period); resolves once
	 * it has exited, so a restart does not meet the old server's lock. On Windows a signal
	 * terminates outright (no clean exit, the server lock and discovery file stay), so the
	 * sidecar is first asked over the API (`POST /v1/shutdown` with its token) and killed only
	 * when it has not exited within a grace period. An adopted sidecar is asked over the API.
	 */
	stop(): Promise<void> {
		this.cancelRestart();
		if (this.store.get().restart) this.patch({ restart: null });
		const adopted = this.adopted;
		if (adopted && !this.child) {
			this.adopted = null;
			this.patch({ phase: "off", pid: null });
			return adopted.shutdown().catch(() => undefined);
		}
		const child = this.child;
		if (!child) {
			if (this.store.get().phase === "exited") this.patch({ phase: "off" });
			return Promise.resolve();
		}
		this.child = null;
		this.patch({ phase: "off", pid: null });
		if (child.exitCode !== null) return Promise.resolve();
		const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
		const within = (ms: number): Promise<boolean> =>
			new Promise<boolean>((resolve) => {
				const timer = this.clock.setTimeout(() => resolve(false), ms);
				void exited.then(() => {
					this.clock.clearTimeout(timer);
					resolve(true);
				});
			});
		const kill = async (): Promise<void> => {
			if (this.platform === "win32" && this.shutdownOwn) {
				const asked = await this.shutdownOwn().then(
					() => true,
					() => false,
				);
				if (asked && (await within(SHUTDOWN_GRACE_MS))) return;
				if (child.exitCode !== null) return;
			}
			child.kill("SIGTERM");
			if (await within(STOP_GRACE_MS)) return;
			if (child.exitCode === null) child.kill("SIGKILL");
			await within(500);
		};
		return kill();
	}

	/**
	 * Stops only a sidecar we started (the plugin is disabled, Obsidian quits): one we adopted,
	 * e.g. started in a terminal, is left running and merely forgotten.
	 */
	stopOwn(): Promise<void> {
		if (this.adopted && !this.child) {
			this.cancelRestart();
			this.adopted = null;
			this.patch({ phase: "off", pid: null });
			return Promise.resolve();
		}
		return this.stop();
	}

	/** Stops the sidecar (ours or adopted) and starts ours with the current options. */
	async restart(): Promise<boolean> {
		await this.stop();
		return this.start();
	}

	/**
	 * Runs `vaultheat config set KEY VALUE` for this vault's index (one short process; it writes
	 * the index's config.toml, never the vault). Resolves with its exit code and output.
	 */
	runConfigSet(key: string, value: string): Promise<{ code: number | null; output: string }> {
		const options = this.options();
		const argv = configSetArgv(options, key, value);
		const [command, ...args] = argv;
		if (!command) return Promise.resolve({ code: null, output: "No command is set." });
		return new Promise((resolve) => {
			let output = "";
			let child: ChildLike;
			try {
				child = this.spawn(command, args, this.spawnOptions(options.vaultPath));
			} catch (err) {
				resolve({ code: null, output: (err as Error).message });
				return;
			}
			const keep = (chunk: OutputChunk): void => {
				output += typeof chunk === "string" ? chunk : chunk.toString("utf8");
			};
			child.stdout?.on("data", keep);
			child.stderr?.on("data", keep);
			child.on("error", (err) => resolve({ code: null, output: err.message }));
			child.on("exit", (code) => resolve({ code, output: output.trim() }));
		});
	}

	/** Our sidecar exited (or failed to start) without being asked: restart it with back-off. */
	private crashed(): void {
		if (!this.autoRestart()) return;
		const upFor = this.spawnedAt === null ? 0 : this.clock.now() - this.spawnedAt;
		this.spawnedAt = null;
		if (upFor >= STABLE_MS) this.restarts = 0;
		if (this.restarts >= MAX_RESTARTS) {
			this.patch({ restart: { attempt: this.restarts, at: null, gaveUp: true } });
			return;
		}
		const delay = backoffDelay(CRASH_RESTART, this.restarts);
		this.restarts++;
		this.patch({ restart: { attempt: this.restarts, at: this.clock.now() + delay, gaveUp: false } });
		this.restartTimer = this.clock.setTimeout(() => {
			this.restartTimer = null;
			if (this.child || this.adopted) return;
			void this.launch();
		}, delay);
	}

	private cancelRestart(): void {
		if (this.restartTimer !== null) {
			this.clock.clearTimeout(this.restartTimer);
			this.restartTimer = null;
		}
	}

	/** The sidecar runs in the vault folder, unbuffered, with no console window on Windows. */
	private spawnOptions(vaultPath: string): Parameters<SpawnFn>[2] {
		return { cwd: vaultPath, env: { ...this.env, PYTHONUNBUFFERED: "1" }, stdio: ["ignore", "pipe", "pipe"], windowsHide: true };
	}

	private fail(err: Error & { code?: string }, commandLine: string): void {
		const missing = err.code === "ENOENT";
		this.store.set({
			phase: missing ? "missing" : "exited",
			commandLine,
			pid: null,
			exitCode: null,
			output: [err.message],
			restart: this.store.get().restart,
		});
	}

	private capture(chunk: OutputChunk): void {
		const text = this.partial + (typeof chunk === "string" ? chunk : chunk.toString("utf8"));
		const lines = text.split(/\r?\n/);
		this.partial = lines.pop() ?? "";
		const fresh = lines.map((l) => l.trimEnd()).filter((l) => l !== "");
		if (fresh.length > 0) this.patch({ output: [...this.store.get().output, ...fresh].slice(-OUTPUT_LINES) });
	}

	private flushPartial(): void {
		if (this.partial.trim()) {
			this.patch({ output: [...this.store.get().output, this.partial.trim()].slice(-OUTPUT_LINES) });
		}
		this.partial = "";
	}

	private patch(patch: Partial<SidecarInfo>): void {
		this.store.set({ ...this.store.get(), ...patch });
	}
}
