/**
 * Node built-ins as the plugin's main.js sees them through `require` in the e2e page.
 * `http`/`https`: just `request`, streamed through the harness proxy with fetch (the plugin
 * reads Server-Sent Events through it). `child_process`: spawn fails like a missing command,
 * since a page cannot start processes.
 */

type Listener = (...args: unknown[]) => void;

class Emitter {
	private listeners = new Map<string, Listener[]>();
	on(event: string, listener: Listener): this {
		this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
		return this;
	}
	once(event: string, listener: Listener): this {
		const wrapped: Listener = (...args) => {
			this.off(event, wrapped);
			listener(...args);
		};
		return this.on(event, wrapped);
	}
	off(event: string, listener: Listener): this {
		this.listeners.set(event, (this.listeners.get(event) ?? []).filter((l) => l !== listener));
		return this;
	}
	emit(event: string, ...args: unknown[]): boolean {
		const list = this.listeners.get(event) ?? [];
		for (const l of [...list]) l(...args);
		return list.length > 0;
	}
}

class ShimResponse extends Emitter {
	statusCode: number;
	constructor(status: number) {
		super();
		this.statusCode = status;
	}
	setEncoding(): void {}
	resume(): void {}
}

class ShimRequest extends Emitter {
	private readonly controller = new AbortController();
	private readonly url: string;
	private readonly options: { method?: string; headers?: Record<string, string> };
	private readonly callback: (res: ShimResponse) => void;

	constructor(url: string, options: { method?: string; headers?: Record<string, string> }, callback: (res: ShimResponse) => void) {
		super();
		this.url = url;
		this.options = options;
		this.callback = callback;
	}

	end(): void {
		void this.run();
	}

	destroy(): void {
		this.controller.abort();
	}

	private async run(): Promise<void> {
		let response: Response;
		try {
			response = await fetch("/__proxy", {
				method: this.options.method ?? "GET",
				headers: { ...(this.options.headers ?? {}), "x-vh-url": this.url },
				signal: this.controller.signal,
			});
		} catch (err) {
			if (!this.controller.signal.aborted) this.emit("error", err);
			return;
		}
		if (response.status === 599) {
			this.emit("error", new Error(await response.text()));
			return;
		}
		const res = new ShimResponse(response.status);
		this.callback(res);
		const reader = response.body?.getReader();
		if (!reader) {
			res.emit("end");
			return;
		}
		const decoder = new TextDecoder();
		try {
			for (;;) {
				const { done, value } = await reader.read();
				if (done) break;
				res.emit("data", decoder.decode(value, { stream: true }));
			}
			res.emit("end");
		} catch (err) {
			if (!this.controller.signal.aborted) res.emit("error", err);
		}
	}
}

export const http = {
	request(url: string | URL, options: { method?: string; headers?: Record<string, string> }, callback: (res: ShimResponse) => void): ShimRequest {
		return new ShimRequest(String(url), options, callback);
	},
};

/** Every process the plugin tried to start (none may start before the user agrees). */
export const spawned: string[][] = [];

export const childProcess = {
	spawn(command: string, args: string[] = []): Emitter & { pid?: number; exitCode: number | null; stdout: null; stderr: null; kill(): boolean } {
		spawned.push([command, ...args]);
		const child = Object.assign(new Emitter(), { exitCode: null, stdout: null, stderr: null, kill: () => false });
		window.setTimeout(() => {
			child.emit("error", Object.assign(new Error(`spawn ${command} ENOENT (the e2e page cannot start processes)`), { code: "ENOENT" }));
		}, 10);
		return child;
	},
};

/** The vault ids the harness computed in Node (sha256 of the vault path), by input string. */
export const knownHashes = new Map<string, string>();

export const crypto = {
	createHash(_algorithm: string) {
		let input = "";
		const hash = {
			update(data: string) {
				input += data;
				return hash;
			},
			digest(_encoding: string) {
				return knownHashes.get(input) ?? "0".repeat(64);
			},
		};
		return hash;
	},
};

/**
 * No file system in the page: nothing outside the vault exists, paths are already real, except
 * an installed vaultheat the harness describes (`installed`: pipx's layout, for the setup card).
 */
export const installed: { command: string | null; version: string } = { command: null, version: "" };
const PIPX_VENV = "/home/e2e/.local/share/pipx/venvs/vaultheat";

export const fs = {
	existsSync: (path: string) => path === installed.command,
	realpathSync: (path: string) => (path === installed.command ? `${PIPX_VENV}/bin/vaultheat` : path),
	readdirSync: (path: string): string[] => {
		if (!installed.command) return [];
		if (path === `${PIPX_VENV}/lib`) return ["python3.11"];
		if (path === `${PIPX_VENV}/lib/python3.11/site-packages`) return ["numpy-2.1.0.dist-info", `vaultheat-${installed.version}.dist-info`, "vaultheat"];
		return [];
	},
	/** Files outside the vault (an index folder's server.json) through the harness. */
	promises: {
		readFile: async (path: string) => {
			const res = await fetch("/__ext", { method: "POST", body: path });
			if (!res.ok) throw new Error(`ENOENT: ${path}`);
			return res.text();
		},
	},
};

export const os = { homedir: () => "/home/e2e" };
