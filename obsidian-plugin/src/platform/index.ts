/**
 * The platform seam. Everything that needs Node or Electron (spawning the sidecar, probing the
 * install paths, reading a discovery file outside the vault, hashing the vault's real path, the
 * event stream over `http`) sits behind `DesktopPlatform`, built by ./desktop.ts. That module
 * is reached only through the dynamic import below, and only on the desktop app in its desktop
 * layout: on Obsidian mobile (Capacitor, no Node) it is never evaluated, so no `require("fs")`
 * ever runs. desktop.ts takes Node's modules from one function that exits early unless
 * `Platform.isDesktop` and `Platform.isDesktopApp` (the guard Obsidian's review lint reads).
 *
 * Both flags: `isDesktopApp` is the app kind (Node exists); `isDesktop` is false under
 * `app.emulateMobile(true)`, where the plugin then runs exactly as on a phone.
 */
import type { EventStreamOpener } from "../api/events";
import type { FolderReader, SpawnFn } from "../sidecar";

export interface DesktopPlatform extends FolderReader {
	spawn: SpawnFn;
	/** GET /v1/events over Node's http/https (requestUrl cannot stream). */
	events: EventStreamOpener;
	env: Record<string, string | undefined>;
	pid: number | null;
	/** process.platform: "darwin", "win32", "linux". */
	os: string;
	home: string;
	exists(path: string): boolean;
	/** A file outside the vault (the discovery file of an index elsewhere); null if unreadable. */
	readFile(absPath: string): Promise<string | null>;
	/** The vault's absolute folder from its adapter ("" when it is not a FileSystemAdapter). */
	basePath(adapter: unknown): string;
	/** First 16 hex digits of sha256 of the vault's resolved path, as `/v1/health` reports it. */
	vaultId(vaultPath: string): string | null;
}

/** Loads the desktop half; call only when `Platform.isDesktopApp && Platform.isDesktop`. */
export async function loadDesktopPlatform(): Promise<DesktopPlatform> {
	const { desktopPlatform } = await import("./desktop");
	return desktopPlatform();
}
