/**
 * Turns a failure into what a person should do about it: a title, one sentence, maybe a command
 * to run, and the buttons that fix it. Pure, so every branch is tested; the views only draw it.
 */
import type { ApiError } from "../api/errors";
import type { Progress } from "../api/types";
import { MAX_RESTARTS } from "./backoff";
import { NO_ADDRESS } from "./connection";
import { NO_SERVER } from "./related";
import type { AppStatus, SetupState } from "./status";

/** Mobile without a server address: what works, what does not, and how to get the rest. */
export const NO_SERVER_DIAGNOSIS: Diagnosis = {
	title: "No server for this device",
	detail:
		"Vaultheat's sidecar cannot run on a phone or tablet. Search, explain and related notes for unsaved text need one running elsewhere: set its address and token in settings (vaultheat serve --allow-remote on your desktop or a home server). Without one, the related notes sidebar shows the snapshot your desktop wrote, and Obsidian's own search still finds words.",
	actions: ["open-settings"],
	tone: "info",
};

export type FixAction =
	| "start-sidecar"
	| "retry"
	| "open-settings"
	| "build-index"
	| "rebuild-index"
	| "resume-index"
	| "pause-index"
	| "stop-sidecar"
	| "show-status"
	// the setup card: start once, start always, search again for vaultheat
	| "setup-start"
	| "setup-always"
	| "setup-rescan";

export interface Diagnosis {
	title: string;
	detail: string;
	/** A command line to copy, when the fix happens in a terminal. */
	command?: string;
	actions: FixAction[];
	progress?: Progress | null;
	tone: "info" | "busy" | "error";
}

/**
 * Runnable as it is in a terminal opened in a clone of the vaultheat repository: installs the
 * sidecar (and this plugin's build) as a tool, so `vaultheat` lands in ~/.local/bin, where the
 * plugin looks. `uv tool install .` does the same.
 */
export const INSTALL_COMMAND = "pipx install .";

/** Where the search for `vaultheat` looked, in words. */
export const SEARCHED = "the search path, ~/.local/bin, pipx's and uv's tool folders and Homebrew's";

/** The first-run card: what was found and the two ways to start it, or how to install it. */
export function setupDiagnosis(setup: SetupState): Diagnosis {
	const found = setup.found;
	if (!found) {
		return {
			title: "Install the vaultheat sidecar",
			detail: `Vaultheat answers from a small Python program (Python 3.11 or newer) on this computer, and it was not found (looked in ${SEARCHED}). It comes with the vaultheat source this plugin was built from (its README, "Install it for your vault"): in a terminal, in a clone of that repository, run the command below (needs pipx; or uv tool install .), then look again; or set its path in settings → Command.`,
			command: INSTALL_COMMAND,
			actions: ["setup-rescan", "open-settings"],
			tone: "info",
		};
	}
	const version = found.version ? `vaultheat ${found.version}` : "vaultheat (version unknown)";
	return {
		title: "Start vaultheat for this vault?",
		detail: `Found ${version} at ${found.command}. It runs on this computer as "vaultheat serve" for this vault: it keeps its index next to your notes (.vaultheat/), answers only on 127.0.0.1, never changes a note, and stops when Obsidian quits.`,
		actions: ["setup-start", "setup-always"],
		tone: "info",
	};
}

export function serveCommand(vaultPath: string): string {
	return `vaultheat serve --vault "${vaultPath}" --port 0`;
}

/** What is wrong with the connection or the index itself, or null when queries can run. */
export function diagnoseStatus(status: AppStatus, vaultPath: string, canSpawn: boolean): Diagnosis | null {
	const { connection, sidecar, index } = status;
	if (status.setup && connection.phase !== "online" && connection.phase !== "connecting") return setupDiagnosis(status.setup);
	switch (connection.phase) {
		case "connecting":
			return { title: "Connecting to vaultheat…", detail: `Looking for the sidecar at ${connection.url || "its address"}.`, actions: [], tone: "busy" };
		case "starting":
			return {
				title: "Starting the sidecar…",
				detail: "The first start loads the embedding model and can take a minute.",
				actions: [],
				tone: "busy",
			};
		case "offline":
			if (connection.message === NO_ADDRESS) return NO_SERVER_DIAGNOSIS;
			if (sidecar.phase === "missing") {
				return {
					title: "The vaultheat sidecar is not installed",
					detail: `Install it with the command below, in a terminal in a clone of the vaultheat repository, or set its full path in settings → Command (or point "Find the sidecar" at a checkout). Tried: ${sidecar.commandLine}`,
					command: INSTALL_COMMAND,
					actions: ["open-settings", "retry"],
					tone: "error",
				};
			}
			if (sidecar.phase === "exited") {
				const last = sidecar.output.slice(-3).join("\n");
				const restart = sidecar.restart;
				if (restart && !restart.gaveUp) {
					return {
						title: "The sidecar stopped; restarting it",
						detail: `It exited with code ${sidecar.exitCode ?? "?"}. Restart ${restart.attempt} of ${MAX_RESTARTS} in a row, after a short wait.${last ? ` Its last words: ${last}` : ""}`,
						actions: ["show-status"],
						tone: "busy",
					};
				}
				if (restart?.gaveUp) {
					return {
						title: "The sidecar keeps stopping",
						detail: `It exited ${restart.attempt + 1} times in a row soon after starting, so it is no longer restarted by itself; start it again once the cause is fixed. Last exit code ${sidecar.exitCode ?? "?"}.${last ? ` Its last words: ${last}` : ""}`,
						actions: canSpawn ? ["start-sidecar", "show-status"] : ["retry"],
						tone: "error",
					};
				}
				return {
					title: "The sidecar stopped",
					detail: `It exited with code ${sidecar.exitCode ?? "?"}.${last ? ` Its last words: ${last}` : ""}`,
					actions: canSpawn ? ["start-sidecar", "show-status"] : ["retry"],
					tone: "error",
				};
			}
			return {
				title: "The sidecar is not running",
				detail: canSpawn
					? `Nothing answers at ${connection.url}. Start it here, or in a terminal:`
					: `Nothing answers at ${connection.url}. Start it in a terminal:`,
				command: serveCommand(vaultPath),
				actions: canSpawn ? ["start-sidecar", "retry"] : ["retry"],
				tone: "error",
			};
		case "unauthorized":
			return {
				title: "The sidecar refused the token",
				detail:
					connection.tokenSource === "settings"
						? "The token in settings does not match this server. Clear it to use the one in .vaultheat/server.json."
						: "The token in .vaultheat/server.json is not this server's. Restart the sidecar, or set the token in settings.",
				actions: ["open-settings", "retry"],
				tone: "error",
			};
		case "forbidden":
			return {
				title: "The sidecar refused the connection",
				detail: `It only serves clients on this computer. Check the address in settings (${connection.url}).`,
				actions: ["open-settings", "retry"],
				tone: "error",
			};
		case "other-vault":
			return {
				title: "That sidecar serves another vault",
				detail: canSpawn
					? `${connection.message ?? ""} Start this vault's own sidecar here (it picks a free port), or in a terminal:`.trim()
					: `${connection.message ?? ""} Start this vault's own sidecar in a terminal:`.trim(),
				command: serveCommand(vaultPath),
				actions: canSpawn ? ["start-sidecar", "retry"] : ["retry"],
				tone: "error",
			};
		case "incompatible":
			return {
				title: "Plugin and sidecar versions do not match",
				detail: `Update both to the same version. ${connection.message ?? ""}`.trim(),
				actions: ["retry"],
				tone: "error",
			};
		case "online":
			break;
	}
	const doc = index.status;
	if (doc?.paused && doc.state !== "ready") {
		return { title: "Indexing is paused", detail: "Resume it to finish the index.", actions: ["resume-index"], tone: "info" };
	}
	if ((doc?.state === "empty" || (doc?.state === "incomplete" && doc.notes === 0)) && !index.progress) {
		return { title: "No index yet", detail: "Build it once; it then follows your edits.", actions: ["build-index"], tone: "info" };
	}
	return null;
}

/** The sidebar's or the modal's failure, in words. */
export function diagnoseQueryError(error: ApiError, status: AppStatus, vaultPath: string, canSpawn: boolean): Diagnosis {
	if (error.code === NO_SERVER) return NO_SERVER_DIAGNOSIS;
	if (error.kind === "unreachable" || error.kind === "timeout") {
		if (error.kind === "timeout" && status.connection.phase === "online") {
			return { title: "The sidecar is slow to answer", detail: error.message, actions: ["retry", "show-status"], tone: "error" };
		}
		return (
			diagnoseStatus({ ...status, connection: { ...status.connection, phase: "offline" } }, vaultPath, canSpawn) ?? {
				title: "The sidecar is not running",
				detail: error.message,
				actions: ["retry"],
				tone: "error",
			}
		);
	}
	switch (error.code) {
		case "unauthorized":
			return diagnoseStatus({ ...status, connection: { ...status.connection, phase: "unauthorized" } }, vaultPath, canSpawn)!;
		case "forbidden":
			return diagnoseStatus({ ...status, connection: { ...status.connection, phase: "forbidden" } }, vaultPath, canSpawn)!;
		case "index_missing": {
			const progress = status.index.progress;
			if (progress || status.index.status?.state === "indexing") {
				return { title: "Indexing your vault…", detail: "Results appear when the first pass is done.", actions: [], progress, tone: "busy" };
			}
			return { title: "No index yet", detail: "Build it once; it then follows your edits.", actions: ["build-index"], tone: "info" };
		}
		case "index_mismatch":
			return {
				title: "The index needs a rebuild",
				detail: "It was built with another model or settings. Rebuilding reads every note again.",
				actions: ["rebuild-index"],
				tone: "error",
			};
		case "index_locked":
			return { title: "The index is busy", detail: "Another vaultheat process holds the index. Try again in a moment.", actions: ["retry"], tone: "error" };
		case "index_changed":
			return { title: "The index was rebuilt", detail: "It changed while it was read. Try again.", actions: ["retry"], tone: "error" };
		case "index_corrupt":
			return { title: "The index is damaged", detail: "Rebuild it to start afresh.", actions: ["rebuild-index"], tone: "error" };
		case "model_missing":
			return {
				title: "The embedding model is missing",
				detail: `${error.message} Install the model package into the sidecar's environment.`,
				actions: ["show-status"],
				tone: "error",
			};
		case "provider":
			return { title: "The embedding provider failed", detail: error.message, actions: ["retry", "show-status"], tone: "error" };
		case "too_large":
			return { title: "This note is too large to send", detail: "Related notes use the saved version instead.", actions: ["retry"], tone: "error" };
		case "not_found":
			return { title: "Not in the index yet", detail: "This note is indexed when it is saved.", actions: ["retry"], tone: "info" };
		default:
			if (error.kind === "protocol") {
				return diagnoseStatus({ ...status, connection: { ...status.connection, phase: "incompatible", message: error.message } }, vaultPath, canSpawn)!;
			}
			return { title: "Something went wrong", detail: error.message, actions: ["retry", "show-status"], tone: "error" };
	}
}
