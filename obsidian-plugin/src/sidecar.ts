/**
 * Starts and stops `vaultheat serve` for this vault (desktop only, and only when asked).
 *
 * The spawn function is injected (Node's child_process.spawn in Obsidian, a fake in tests), so
 * this module never imports Node itself. We only ever stop a process we started. Its last lines
 * of output are kept: when it exits early, the sidebar shows why (a missing model, a locked
 * index) instead of a bare "offline". A missing executable (ENOENT) is reported as `missing`
 * so the UI can show the install command.
 */
import type { SidecarControl } from "./state/connection";
import type { SidecarInfo } from "./state/status";
import { Store } from "./state/store";

export interface ChildLike {
	readonly pid?: number;
	readonly exitCode: number | null;
	readonly stdout: { on(event: "data", listener: (chunk: Buffer | string) => void): unknown } | null;
	readonly stderr: { on(event: "data", listener: (chunk: Buffer | string) => void): unknown } | null;
	on(event: "error", listener: (err: Error & { code?: string }) => void): unknown;
	on(event: "exit", listener: (code: number | null, signal: string | null) => void): unknown;
	on(event: "spawn", listener: () => void): unknown;
	kill(signal?: NodeJS.Signals | number): boolean;
}

export type SpawnFn = (
	command: string,
	args: string[],
	options: { cwd: string; env: Record<string, string | undefined>; stdio: ["ignore", "pipe", "pipe"]; windowsHide: boolean },
) => ChildLike;

export interface SidecarOptions {
	command: string;
	pythonPath: string;
	vaultPath: string;
	/** Port to ask for, from an explicit address in settings (else the server's own config). */
	port: number | null;
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
	if (options.port !== null) argv.push("--port", String(options.port));
	return argv;
}

export function quoteArgv(argv: readonly string[]): string {
	return argv.map((a) => (/[\s"']/.test(a) ? `"${a.replace(/"/g, '\\"')}"` : a)).join(" ");
}

const OUTPUT_LINES = 40;
const STOP_GRACE_MS = 3000;

export class SidecarManager implements SidecarControl {
	readonly store: Store<SidecarInfo>;
	private readonly spawn: SpawnFn;
	private readonly options: () => SidecarOptions;
	private readonly env: Record<string, string | undefined>;
	private child: ChildLike | null = null;
	private partial = "";

	constructor(spawn: SpawnFn, options: () => SidecarOptions, env: Record<string, string | undefined>) {
		this.spawn = spawn;
		this.options = options;
		this.env = env;
		this.store = new Store<SidecarInfo>({ phase: "off", commandLine: "", pid: null, exitCode: null, output: [] });
	}

	running(): boolean {
		return this.child !== null && this.child.exitCode === null;
	}

	start(): Promise<boolean> {
		if (this.running()) return Promise.resolve(true);
		const options = this.options();
		const argv = sidecarArgv(options);
		const [command, ...args] = argv;
		const commandLine = quoteArgv(argv);
		if (!command) {
			this.store.set({ phase: "missing", commandLine, pid: null, exitCode: null, output: ["No command is set."] });
			return Promise.resolve(false);
		}
		this.partial = "";
		this.store.set({ phase: "starting", commandLine, pid: null, exitCode: null, output: [] });
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
				child = this.spawn(command, args, {
					cwd: options.vaultPath,
					env: { ...this.env, PYTHONUNBUFFERED: "1" },
					stdio: ["ignore", "pipe", "pipe"],
					windowsHide: true,
				});
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
			});
			child.on("spawn", () => {
				this.patch({ phase: "running", pid: child.pid ?? null });
				settle(true);
			});
			child.on("exit", (code) => {
				if (this.child !== child) return;
				this.child = null;
				this.flushPartial();
				this.patch({ phase: "exited", exitCode: code, pid: null });
				settle(false);
			});
		});
	}

	/** Stops the process we started (SIGTERM, then SIGKILL after a grace period). */
	stop(): void {
		const child = this.child;
		if (!child) return;
		this.child = null;
		child.kill("SIGTERM");
		window.setTimeout(() => {
			if (child.exitCode === null) child.kill("SIGKILL");
		}, STOP_GRACE_MS);
		this.patch({ phase: "off", pid: null });
	}

	private fail(err: Error & { code?: string }, commandLine: string): void {
		const missing = err.code === "ENOENT";
		this.store.set({
			phase: missing ? "missing" : "exited",
			commandLine,
			pid: null,
			exitCode: null,
			output: [err.message],
		});
	}

	private capture(chunk: Buffer | string): void {
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
