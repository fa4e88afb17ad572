/**
 * The related-notes snapshot: each note's top related notes (path, relevance and its label, the
 * link status, the vote count, the link heat's via notes, the line the best part starts on), kept
 * by the desktop plugin in its own folder and read by the mobile one, which has no model and
 * maybe no server.
 *
 * The file is compact JSON: every path is written once in `paths` and the lists refer to it by
 * index, relevance is an integer per mille, labels and link states are one-letter codes. Size is
 * bounded by `top` (at most MAX_TOP per note) and MAX_NOTES notes. Pure functions here; the
 * keeper (snapshot-keeper.ts) fetches and saves, the sidebar reads through `lookup`.
 */
import type { LinkStatus, RelatedHit, RelevanceLabel } from "../api/types";

export const SNAPSHOT_FORMAT = "vaultheat.snapshot.v1";
export const SNAPSHOT_FILE = "related-snapshot.json";
/** Most related notes kept per note. */
export const MAX_TOP = 10;
/** Most notes kept; past it the notes whose lists are oldest are dropped. */
export const MAX_NOTES = 100_000;
/** File-system mtimes are not exact across copies: closer than this counts as unchanged. */
const MTIME_SLACK_MS = 2000;

export interface SnapshotHit {
	path: string;
	/** Absolute relevance 0..1 (null from a server without it). */
	relevance: number | null;
	label: RelevanceLabel | null;
	link: LinkStatus;
	/** How many of the note's closest neighbours link to this one (the vote line). */
	votes: number;
	/** Link heat's via notes (the note's own link neighbours next to this one), most telling first; absent when none. */
	via?: string[];
	/** First line of the best matching part (1-based), to open the note there. */
	line: number;
}

export interface SnapshotEntry {
	/** The note's modified time (epoch ms) when its list was made. */
	mtime: number;
	/** When its list was made (epoch ms). */
	at: number;
	hits: SnapshotHit[];
}

export interface Snapshot {
	/** When the snapshot was last written (epoch ms). */
	updated: number;
	top: number;
	notes: Map<string, SnapshotEntry>;
}

export function emptySnapshot(top = MAX_TOP): Snapshot {
	return { updated: 0, top: Math.min(MAX_TOP, Math.max(1, top)), notes: new Map() };
}

const LABEL_CODE: Record<RelevanceLabel, string> = { strong: "s", good: "g", weak: "w" };
const LINK_CODE: Record<LinkStatus, string> = { unlinked: "u", linked: "l", backlinked: "b", both: "m" };
const LABEL_OF = invert(LABEL_CODE);
const LINK_OF = invert(LINK_CODE);

function invert<K extends string>(map: Record<K, string>): Record<string, K> {
	const out: Record<string, K> = {};
	for (const [k, v] of Object.entries(map) as [K, string][]) out[v] = k;
	return out;
}

/** A server hit, cut down to what the snapshot keeps. */
export function toSnapshotHit(hit: RelatedHit): SnapshotHit {
	return {
		path: hit.path,
		relevance: typeof hit.relevance === "number" && Number.isFinite(hit.relevance) ? hit.relevance : null,
		label: hit.relevance_label ?? null,
		link: hit.link_status,
		votes: hit.votes?.count ?? 0,
		line: hit.best_chunk.line_start,
		...(hit.link_heat?.via.length ? { via: hit.link_heat.via.map((v) => v.path) } : {}),
	};
}

/** The entry for one note's answer: at most `top` hits, never the note itself. */
export function entryOf(path: string, hits: readonly RelatedHit[], mtime: number, at: number, top: number): SnapshotEntry {
	return { mtime, at, hits: hits.filter((h) => h.path !== path).slice(0, Math.min(top, MAX_TOP)).map(toSnapshotHit) };
}

/** [path, relevance ‰, label, votes, link, line, via paths?]: older snapshots have no via. */
type EncodedHit = [number, number, string, number, string, number, number[]?];
type EncodedNote = [number, number, number, EncodedHit[]];

interface EncodedSnapshot {
	format: string;
	updated: number;
	top: number;
	paths: string[];
	notes: EncodedNote[];
}

export function encodeSnapshot(snapshot: Snapshot): string {
	const paths: string[] = [];
	const index = new Map<string, number>();
	const id = (p: string): number => {
		let i = index.get(p);
		if (i === undefined) {
			i = paths.length;
			paths.push(p);
			index.set(p, i);
		}
		return i;
	};
	const notes: EncodedNote[] = [];
	for (const [path, entry] of snapshot.notes) {
		const hits = entry.hits.map((h): EncodedHit => {
			const out: EncodedHit = [
				id(h.path),
				h.relevance === null ? -1 : Math.round(h.relevance * 1000),
				h.label ? LABEL_CODE[h.label] : "",
				h.votes,
				LINK_CODE[h.link] ?? "u",
				h.line,
			];
			if (h.via?.length) out.push(h.via.map(id));
			return out;
		});
		notes.push([id(path), Math.round(entry.mtime), Math.round(entry.at), hits]);
	}
	const doc: EncodedSnapshot = { format: SNAPSHOT_FORMAT, updated: snapshot.updated, top: snapshot.top, paths, notes };
	return JSON.stringify(doc);
}

/** The snapshot in `text`, or null when it is not one this plugin can read (never throws). */
export function decodeSnapshot(text: string): Snapshot | null {
	let doc: Partial<EncodedSnapshot>;
	try {
		doc = JSON.parse(text) as Partial<EncodedSnapshot>;
	} catch {
		return null;
	}
	if (!doc || doc.format !== SNAPSHOT_FORMAT || !Array.isArray(doc.paths) || !Array.isArray(doc.notes)) return null;
	const paths = doc.paths;
	const notes = new Map<string, SnapshotEntry>();
	for (const row of doc.notes) {
		if (!Array.isArray(row) || row.length !== 4 || !Array.isArray(row[3])) continue;
		const source = paths[row[0]];
		if (typeof source !== "string") continue;
		const hits: SnapshotHit[] = [];
		for (const h of row[3]) {
			const target = Array.isArray(h) ? paths[h[0]] : undefined;
			if (typeof target !== "string") continue;
			const hit: SnapshotHit = {
				path: target,
				relevance: typeof h[1] === "number" && h[1] >= 0 ? h[1] / 1000 : null,
				label: LABEL_OF[h[2]] ?? null,
				votes: typeof h[3] === "number" ? h[3] : 0,
				link: LINK_OF[h[4]] ?? "unlinked",
				line: typeof h[5] === "number" ? h[5] : 1,
			};
			const via = Array.isArray(h[6]) ? h[6].map((i) => paths[i]).filter((p): p is string => typeof p === "string") : [];
			if (via.length > 0) hit.via = via;
			hits.push(hit);
		}
		notes.set(source, { mtime: Number(row[1]) || 0, at: Number(row[2]) || 0, hits });
	}
	return { updated: Number(doc.updated) || 0, top: Math.min(MAX_TOP, Math.max(1, Number(doc.top) || MAX_TOP)), notes };
}

/** A note's file, as the vault lists it now. */
export interface NoteFile {
	path: string;
	mtime: number;
}

export interface SnapshotWork {
	/** Notes whose lists must be fetched again (new, changed, or pointing at a changed note). */
	refresh: string[];
	/** Notes gone from the vault: drop their lists. */
	remove: string[];
}

/** Whether `file` changed since its entry was made. */
export function changedSince(entry: SnapshotEntry, mtime: number): boolean {
	return mtime > entry.mtime + MTIME_SLACK_MS;
}

/**
 * What to fetch after the index moved on. A note's list can change when the note itself changed,
 * or when a note it lists changed or went away (`exists` says whether a listed path is still in
 * the vault; by default, whether it is among `files`); those are refreshed. (A changed note can also
 * enter a list it was not in: the keeper refreshes the notes a changed note's new list names,
 * which catches most of those, since similarity is symmetric; a full rebuild catches the rest.)
 */
export function planRefresh(snapshot: Snapshot, files: readonly NoteFile[], exists?: (path: string) => boolean): SnapshotWork {
	const present = new Map(files.map((f) => [f.path, f.mtime]));
	// A listed note need not be one whose list is kept (a PDF, an excluded note): ask the vault.
	const there = exists ?? ((path: string) => present.has(path));
	const changed = new Set<string>();
	for (const f of files) {
		const entry = snapshot.notes.get(f.path);
		if (!entry || changedSince(entry, f.mtime)) changed.add(f.path);
	}
	const remove = [...snapshot.notes.keys()].filter((p) => !present.has(p));
	const gone = new Set(remove);
	const refresh = new Set(changed);
	for (const [source, entry] of snapshot.notes) {
		if (gone.has(source) || refresh.has(source)) continue;
		if (entry.hits.some((h) => changed.has(h.path) || gone.has(h.path) || !there(h.path))) refresh.add(source);
	}
	return { refresh: [...refresh], remove };
}

/** Drops the notes whose lists are oldest until at most `max` are left. */
export function boundSnapshot(snapshot: Snapshot, max = MAX_NOTES): void {
	if (snapshot.notes.size <= max) return;
	const oldest = [...snapshot.notes.entries()].sort((a, b) => a[1].at - b[1].at);
	for (const [path] of oldest.slice(0, snapshot.notes.size - max)) snapshot.notes.delete(path);
}

/** What the sidebar shows for a note from the snapshot. */
export interface SnapshotAnswer {
	/** When this note's list was made (epoch ms). */
	at: number;
	/** The open note changed since then (the list may be out of date). */
	noteChanged: boolean;
	/** Listed notes that changed since, or that are gone. */
	changed: string[];
	hits: SnapshotHit[];
}

/**
 * The snapshot's answer for `path`, with what changed since on this device (`mtimeOf` gives a
 * file's modified time, or null when the file is not there).
 */
export function lookup(snapshot: Snapshot, path: string, mtimeOf: (path: string) => number | null): SnapshotAnswer | null {
	const entry = snapshot.notes.get(path);
	if (!entry) return null;
	const now = mtimeOf(path);
	const changed: string[] = [];
	const hits: SnapshotHit[] = [];
	for (const hit of entry.hits) {
		const m = mtimeOf(hit.path);
		if (m === null) continue; // deleted or renamed since: nothing to open
		hits.push(hit);
		if (m > entry.at + MTIME_SLACK_MS) changed.push(hit.path);
	}
	return { at: entry.at, noteChanged: now !== null && changedSince(entry, now), changed, hits };
}

/** "Folder/Note.md" → "Note": the title a snapshot can give without the note's metadata. */
function titleOf(path: string): string {
	return path.replace(/^.*\//, "").replace(/\.[^.]+$/, "");
}

/** A snapshot hit in the shape the row renderer draws (no snippet, no scores to explain). */
export function asRelatedHit(hit: SnapshotHit, rank: number): RelatedHit {
	const name = titleOf(hit.path);
	const folder = hit.path.includes("/") ? hit.path.slice(0, hit.path.lastIndexOf("/")) : "";
	const out: RelatedHit = {
		rank,
		path: hit.path,
		title: name,
		folder,
		score: hit.relevance ?? 0,
		link_status: hit.link,
		best_chunk: { chunk_id: -1, heading_path: [], line_start: hit.line, line_end: hit.line, byte_start: 0, byte_end: 0, text: "" },
		duplicates: [],
		components: { vector: 0, lexical: 0, heat: 0, fusion: null, rerank: null, title: null, note: null, page: null },
		explain: null,
		votes: hit.votes > 0 ? { count: hit.votes, k: 0, share: 0, weight: 0, bonus: 0, hub_factor: 1, voters: [] } : null,
	};
	// Only the via notes are kept (for the row's line); the numbers stay on the desktop.
	if (hit.via?.length) out.link_heat = { kind: "ppr", heat: 0, top: 0, weight: 0, bonus: 0, via: hit.via.map((p) => ({ path: p, title: titleOf(p) })) };
	if (hit.relevance !== null) out.relevance = hit.relevance;
	if (hit.label) out.relevance_label = hit.label;
	return out;
}

/** "as of 2 Dec 2026, 15:04" */
export function asOf(at: number): string {
	const d = new Date(at);
	return `as of ${d.toLocaleDateString(undefined, { day: "numeric", month: "short", year: "numeric" })}, ${d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" })}`;
}
