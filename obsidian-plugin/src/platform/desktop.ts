/**
 * The desktop half of the platform seam: the only module that loads Node built-ins. Loaded by
 * `loadDesktopPlatform` (a dynamic import) on the desktop app only; see ./index.ts.
 *
 * The built-ins come from one guarded `require` call site (`nodeModules` below), not from
 * top-level imports: on Obsidian mobile (no Node) that function is never reached, and it
 * refuses to run unless `Platform.isDesktopApp`. A dynamic `import("fs")` is not an option:
 * esbuild leaves an external module's `import()` as a real ES import, which Obsidian's
 * CommonJS loader does not provide. The `import("…")` below are types only, erased at build.
 */
import { FileSystemAdapter, Platform } from "obsidian";
import { nodeEventStream } from "../api/events";
import type { DesktopPlatform } from "./index";

interface NodeModules {
	childProcess: typeof import("child_process");
	crypto: typeof import("crypto");
	fs: typeof import("fs");
	http: typeof import("http");
	https: typeof import("https");
	os: typeof import("os");
}

/**
 * Node's built-ins, from the host's `require`. Two guards, both early exits: `isDesktop` first
 * (the form Obsidian's review lint reads), so an emulated phone (`app.emulateMobile(true)`)
 * runs as a real phone would, then `isDesktopApp` (the app kind: Node exists).
 */
/* global require -- the CommonJS require Obsidian runs the plugin with (Electron's, on desktop) */
function nodeModules(): NodeModules {
	if (!Platform.isDesktop) throw new Error("Vaultheat: the desktop features are off in the mobile layout.");
	if (!Platform.isDesktopApp) throw new Error("Vaultheat: Node modules exist only in the desktop app.");
	/* eslint-disable @typescript-eslint/no-require-imports -- the host's CommonJS require, behind
	 * the guards above: an external `import()` would stay an ES import Obsidian's loader lacks */
	return {
		childProcess: require("child_process") as typeof import("child_process"),
		crypto: require("crypto") as typeof import("crypto"),
		fs: require("fs") as typeof import("fs"),
		http: require("http") as typeof import("http"),
		https: require("https") as typeof import("https"),
		os: require("os") as typeof import("os"),
	};
	/* eslint-enable @typescript-eslint/no-require-imports -- only the six built-ins above */
}

export function desktopPlatform(): DesktopPlatform {
	const { childProcess, crypto, fs, http, https, os } = nodeModules();
	// Electron's global on the window (no `require("process")`: a host's require may not list it).
	const proc = (window as Window & { process?: typeof import("process") }).process ?? null;
	return {
		spawn: childProcess.spawn,
		events: nodeEventStream((url, options, callback) =>
			String(url).startsWith("https:") ? https.request(url, options, callback) : http.request(url, options, callback),
		),
		env: proc?.env ?? {},
		pid: proc?.pid ?? null,
		os: proc?.platform ?? "linux",
		home: os.homedir(),
		exists: (p) => fs.existsSync(p),
		realpath: (p) => fs.realpathSync(p),
		readdir: (p) => fs.readdirSync(p),
		readFile: async (absPath) => {
			try {
				return await fs.promises.readFile(absPath, "utf8");
			} catch {
				return null;
			}
		},
		basePath: (adapter) => (adapter instanceof FileSystemAdapter ? adapter.getBasePath() : ""),
		vaultId: (vaultPath) => {
			try {
				const resolved = fs.realpathSync(vaultPath);
				return crypto.createHash("sha256").update(resolved, "utf8").digest("hex").slice(0, 16);
			} catch {
				return null;
			}
		},
	};
}
