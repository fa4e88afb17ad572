/**
 * The desktop half of the platform seam: the only module that imports Node built-ins. Loaded
 * by `loadDesktopPlatform` (a dynamic import) on the desktop app only; see ./index.ts. The
 * imports stay static on purpose: esbuild turns them into `require` calls inside this module's
 * lazy initializer, which runs only when the dynamic import does. (A dynamic `import("fs")` of
 * an external module would be left as a real ES import, which Obsidian's CommonJS loader does
 * not provide.)
 */
import * as childProcess from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as http from "http";
import * as https from "https";
import * as os from "os";
import { FileSystemAdapter } from "obsidian";
import { nodeEventStream } from "../api/events";
import type { DesktopPlatform } from "./index";

export function desktopPlatform(): DesktopPlatform {
	// Electron's global (no `import "process"`: a host's require may not list it).
	const proc = typeof process === "undefined" ? null : process;
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
