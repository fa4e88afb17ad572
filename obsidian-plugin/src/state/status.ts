/**
 * What the status bar, the status modal and the sidebar's error states read: the connection to
 * the sidecar, the sidecar process (when we started it) and the index, as one immutable value.
 *
 * Server events are folded in by `applyServerEvent`, a pure reducer, so the order of events on
 * the wire (state first, then progress/note_indexed/ready/error) is tested without a server.
 * `revision` increments when an index pass finishes: views that show results refresh on it.
 */
import type { IndexPhases, Progress, ServerEvent, StatusDoc } from "../api/types";

export type ConnectionPhase =
	| "connecting" // first attempt, or re-reading the discovery file
	| "starting" // we started the sidecar and wait for it to answer
	| "online"
	| "offline" // nothing answers at the address
	| "unauthorized" // the server refused the token
	| "forbidden" // the server refused this client (address or origin)
	| "other-vault" // a server answers at the address, but for another vault
	| "incompatible"; // it answers, but not with documents this plugin knows

export interface ConnectionState {
	phase: ConnectionPhase;
	url: string;
	tokenSource: "settings" | "discovery" | "none";
	version: string | null;
	/** Why the last attempt failed, in the server's or the system's words. */
	message: string | null;
	/** When the next automatic attempt runs (epoch ms), if one is scheduled. */
	retryAt: number | null;
	/** Whether live events flow (otherwise status is polled). */
	live: boolean;
}

export type SidecarPhase = "off" | "starting" | "running" | "missing" | "exited";

export interface SidecarInfo {
	phase: SidecarPhase;
	/** The command line as the user would type it. */
	commandLine: string;
	pid: number | null;
	exitCode: number | null;
	/** Last lines the process wrote (stderr and stdout), for the error state. */
	output: string[];
	/**
	 * Restarts after the sidecar we started exited by itself: which one in a row, when it is
	 * due (clock time; null once given up), and whether the manager gave up. Null otherwise.
	 */
	restart?: { attempt: number; at: number | null; gaveUp: boolean } | null;
}

export interface IndexInfo {
	status: StatusDoc | null;
	progress: Progress | null;
	lastError: { code: string; message: string } | null;
	revision: number;
	lastIndexedPath: string | null;
}

/** Until the user answers the setup card: what the search for `vaultheat` found. */
export interface SetupState {
	found: { command: string; version: string | null } | null;
}

export interface AppStatus {
	connection: ConnectionState;
	sidecar: SidecarInfo;
	index: IndexInfo;
	/** Null once the setup card was answered (or where the plugin cannot start a sidecar). */
	setup: SetupState | null;
}

export const INITIAL_STATUS: AppStatus = {
	connection: {
		phase: "connecting",
		url: "",
		tokenSource: "none",
		version: null,
		message: null,
		retryAt: null,
		live: false,
	},
	sidecar: { phase: "off", commandLine: "", pid: null, exitCode: null, output: [] },
	index: { status: null, progress: null, lastError: null, revision: 0, lastIndexedPath: null },
	setup: null,
};

export function applyStatusDoc(index: IndexInfo, status: StatusDoc): IndexInfo {
	return {
		...index,
		status,
		progress: status.state === "indexing" ? status.progress : null,
		lastError: status.last_error ? { code: "index", message: status.last_error } : null,
	};
}

export function applyServerEvent(index: IndexInfo, event: ServerEvent): IndexInfo {
	switch (event.name) {
		case "state":
			return applyStatusDoc(index, event.data);
		case "progress": {
			const status = index.status && { ...index.status, state: "indexing" as const, progress: event.data };
			return { ...index, status, progress: event.data };
		}
		case "note_indexed":
			return { ...index, lastIndexedPath: event.data.path };
		case "ready": {
			const status = index.status && {
				...index.status,
				state: "ready" as const,
				notes: event.data.notes,
				chunks: event.data.chunks,
				progress: null,
			};
			return { ...index, status, progress: null, lastError: null, revision: index.revision + 1 };
		}
		case "error":
			return { ...index, lastError: { code: event.data.code, message: event.data.message } };
	}
}

/** A raw SSE message as a typed event, or null for names and payloads we do not know. */
export function parseServerEvent(name: string, data: string): ServerEvent | null {
	let payload: unknown;
	try {
		payload = JSON.parse(data);
	} catch {
		return null;
	}
	if (!payload || typeof payload !== "object") return null;
	switch (name) {
		case "state":
		case "progress":
		case "note_indexed":
		case "ready":
		case "error":
			return { name, data: payload } as ServerEvent;
		default:
			return null;
	}
}

/** Fraction done of an indexing pass, 0..1, or null when the total is not known yet. */
export function progressFraction(progress: Progress | null): number | null {
	if (!progress || progress.total <= 0) return null;
	return Math.max(0, Math.min(1, progress.done / progress.total));
}

/** "2 min", "45 s": rough, for people. */
export function formatEta(seconds: number | null): string {
	if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return "";
	if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s`;
	if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
	return `${(seconds / 3600).toFixed(1)} h`;
}

/** The status bar's words, short enough for a status bar. */
export function statusBarText(status: AppStatus): { text: string; tone: "ok" | "busy" | "warn" | "error" } {
	const { connection, index, sidecar } = status;
	if (status.setup && connection.phase !== "online" && connection.phase !== "connecting") return { text: "Set up", tone: "warn" };
	switch (connection.phase) {
		case "connecting":
			return { text: "Connecting…", tone: "busy" };
		case "starting":
			return { text: "Starting sidecar…", tone: "busy" };
		case "offline":
			return sidecar.phase === "missing"
				? { text: "Sidecar not installed", tone: "error" }
				: { text: "Offline", tone: "error" };
		case "unauthorized":
			return { text: "Token refused", tone: "error" };
		case "forbidden":
			return { text: "Connection refused", tone: "error" };
		case "incompatible":
			return { text: "Version mismatch", tone: "error" };
		case "other-vault":
			return { text: "Another vault's sidecar", tone: "error" };
		case "online":
			break;
	}
	const doc = index.status;
	if (!doc) return { text: "Connected", tone: "ok" };
	if (doc.paused) return { text: "Indexing paused", tone: "warn" };
	if (doc.state === "indexing" || index.progress) {
		const p = index.progress;
		// the meaning phase of a first index: every note is already findable by its words
		if (p && p.stage === "meaning" && p.total > 0) {
			return { text: `Words ready · meaning ${Math.floor((100 * p.done) / p.total)}%`, tone: "busy" };
		}
		if (p && p.total > 0) return { text: `Indexing ${p.done}/${p.total}`, tone: "busy" };
		return { text: "Indexing…", tone: "busy" };
	}
	if (doc.state === "empty" || (doc.state === "incomplete" && doc.notes === 0)) return { text: "No index yet", tone: "warn" };
	const notes = `${doc.notes.toLocaleString("en-US")} ${doc.notes === 1 ? "note" : "notes"}`;
	if (doc.state === "stale") return { text: `${notes} (out of date)`, tone: "warn" };
	const meaning = doc.phases?.meaning;
	if (doc.state === "incomplete" && doc.phases?.words.state === "done" && meaning && meaning.state !== "done") {
		return { text: `${notes} (words only, meaning ${Math.floor(meaning.percent)}%)`, tone: "warn" };
	}
	if (doc.state === "incomplete") return { text: `${notes} (incomplete)`, tone: "warn" };
	return { text: notes, tone: "ok" };
}

/** The index state in plain words, with the server's reason when it sends one. */
export function stateWords(doc: StatusDoc): string {
	const base: Record<string, string> = {
		ready: "Ready: every note is indexed",
		indexing: "Indexing",
		incomplete: "Incomplete: some notes are not indexed yet",
		stale: "Out of date: notes changed since the last index",
		empty: "No index yet",
	};
	const words = base[doc.state] ?? doc.state;
	const detail = doc.state_detail?.trim();
	const paused = doc.paused ? " (paused)" : "";
	const phases = phaseWords(doc.phases);
	const text = detail ? `${words.split(":")[0]}${paused}: ${detail}` : `${words}${paused}`;
	return phases ? `${text}. ${phases}` : text;
}

/**
 * How far the second pass is (multilingual vectors of every passage, `embeddings.second_space`):
 * "" while the space is empty (the pass is off, or from an older server),
 * "1,200 of 3,400 passages, filling" while it runs or was stopped, "3,400 of 3,400 passages" once done.
 */
export function spaceWords(doc: StatusDoc): string {
	const m = doc.spaces?.multilingual;
	if (!m || m.state === "empty") return "";
	const count = `${m.vectors.toLocaleString("en-US")} of ${doc.chunks.toLocaleString("en-US")} passages`;
	return m.state === "filling" ? `${count}, filling` : count;
}

/**
 * The two phases in words while meaning is not done ("" once it is, or from an older server):
 * "Words: done. Meaning: 41% (1,234 of 3,000 passages), about 2 min left".
 */
export function phaseWords(phases: IndexPhases | undefined): string {
	if (!phases || phases.meaning.state === "done") return "";
	const m = phases.meaning;
	const count = `${m.done.toLocaleString("en-US")} of ${m.total.toLocaleString("en-US")} passages`;
	const eta = formatEta(m.eta_s);
	const state = m.state === "interrupted" ? ", stopped: it resumes with the next index run" : "";
	const words = phases.words.state === "done" ? "Words: done (every note is searchable by its words)" : `Words: ${phases.words.state}`;
	return `${words}. Meaning: ${Math.floor(m.percent)}% (${count})${eta ? `, about ${eta} left` : ""}${state}`;
}
