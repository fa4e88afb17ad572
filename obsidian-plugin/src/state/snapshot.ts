/**
 * The related-notes snapshot: each note's top related notes (path, relevance and its label, the
 * link status, the vote count, the link heat's via notes, the line the best part starts on), kept
 * by the desktop plugin in its own folder and read by the mobile one, which has no model and
 * maybe no server.
 *
 * It is written in PARTS parts, `snapshot/part-NN.json`, a note's list in the part its path hashes
 * to (partOf): an index pass rewrites only the parts whose lists changed, a sync moves only those,
 * no file grows near a sync service's per-file cap, and the phone reads the part of the open note
 * only. Each part is compact JSON: every path it names is written once in `paths` (sorted, each
 * sharing `shared[i]` leading characters with the one before), the lists refer to them by index,
 * relevance is an integer per mille, labels and link states are one-letter codes. Size is bounded
 * by `top` (at most MAX_TOP per note) and MAX_NOTES notes. Older plugins wrote one file,
 * `related-snapshot.json` (SNAPSHOT_FILE), in the same encoding: it is still read, until the first
 * write in parts replaces it. Pure functions here; the keeper (snapshot-keeper.ts) fetches and
 * saves, the sidebar reads through `lookup`.
 */
import type { LinkStatus, RelatedHit, RelevanceLabel } from "../api/types";

export const SNAPSHOT_FORMAT = "vaultheat.snapshot.v1";
export const PART_FORMAT = "vaultheat.snapshot.part.v1";
/** The single file older plugins wrote (read until the first write in parts replaces it). */
export const SNAPSHOT_FILE = "related-snapshot.json";
/** How many parts the snapshot is written in (changing it moves every note: a full rewrite). */
export const PARTS = 32;
/** Notes encoded between two yields to the event loop. */
const CHUNK_NOTES = 200;
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
	/** Parts only: how many leading characters each path shares with the one before. */
	shared?: number[];
	part?: number;
	parts?: number;
}

/** The part a note's list is kept in: FNV-1a of its path, stable across devices and versions. */
export function partOf(path: string, parts = PARTS): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < path.length; i++) {
		h ^= path.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	return (h >>> 0) % parts;
}

/** A part's file, relative to the plugin's folder. */
export function partFile(part: number): string {
	return `snapshot/part-${String(part).padStart(2, "0")}.json`;
}

function unshare(paths: unknown[], shared: unknown): string[] {
	const counts = Array.isArray(shared) ? shared : [];
	const out: string[] = [];
	let previous = "";
	for (let i = 0; i < paths.length; i++) {
		const tail = typeof paths[i] === "string" ? (paths[i] as string) : "";
		const n = typeof counts[i] === "number" ? (counts[i] as number) : 0;
		previous = previous.slice(0, n) + tail;
		out.push(previous);
	}
	return out;
}

function encodeHit(h: SnapshotHit, id: (p: string) => number): EncodedHit {
	const out: EncodedHit = [id(h.path), h.relevance === null ? -1 : Math.round(h.relevance * 1000), h.label ? LABEL_CODE[h.label] : "", h.votes, LINK_CODE[h.link] ?? "u", h.line];
	if (h.via?.length) out.push(h.via.map(id));
	return out;
}

/**
 * One part's file: the lists of `notes` (those whose partOf is `part`). Built a chunk of notes at
 * a time, awaiting `pause` (a macrotask in production) between chunks, so the app's main thread
 * never runs one long JSON.stringify of the whole snapshot.
 */
export async function encodePart(
	notes: readonly (readonly [string, SnapshotEntry])[],
	meta: { part: number; updated: number; top: number },
	pause: () => Promise<void>,
): Promise<string> {
	const names = new Set<string>();
	for (const [path, entry] of notes) {
		names.add(path);
		for (const h of entry.hits) {
			names.add(h.path);
			for (const v of h.via ?? []) names.add(v);
		}
	}
	const sorted = [...names].sort();
	const index = new Map(sorted.map((p, i) => [p, i]));
	const id = (p: string): number => index.get(p) ?? 0;
	const shared: number[] = [];
	const tails: string[] = [];
	let previous = "";
	for (const p of sorted) {
		let n = 0;
		const max = Math.min(p.length, previous.length);
		while (n < max && p.charCodeAt(n) === previous.charCodeAt(n)) n++;
		shared.push(n);
		tails.push(p.slice(n));
		previous = p;
	}
	const rows: string[] = [];
	for (let i = 0; i < notes.length; i += CHUNK_NOTES) {
		if (i > 0) await pause();
		const chunk: EncodedNote[] = notes.slice(i, i + CHUNK_NOTES).map(([path, entry]) => [id(path), Math.round(entry.mtime), Math.round(entry.at), entry.hits.map((h) => encodeHit(h, id))]);
		rows.push(JSON.stringify(chunk).slice(1, -1));
	}
	const head = JSON.stringify({ format: PART_FORMAT, part: meta.part, parts: PARTS, updated: meta.updated, top: meta.top, shared, paths: tails });
	return `${head.slice(0, -1)},"notes":[${rows.filter((r) => r !== "").join(",")}]}`;
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
		const hits = entry.hits.map((h) => encodeHit(h, id));
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
	if (!doc || (doc.format !== SNAPSHOT_FORMAT && doc.format !== PART_FORMAT) || !Array.isArray(doc.paths) || !Array.isArray(doc.notes)) return null;
	const paths = doc.format === PART_FORMAT ? unshare(doc.paths, doc.shared) : doc.paths;
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

/** Drops the notes whose lists are oldest until at most `max` are left; returns their paths. */
export function boundSnapshot(snapshot: Snapshot, max = MAX_NOTES): string[] {
	if (snapshot.notes.size <= max) return [];
	const oldest = [...snapshot.notes.entries()].sort((a, b) => a[1].at - b[1].at);
	const dropped = oldest.slice(0, snapshot.notes.size - max).map(([path]) => path);
	for (const path of dropped) snapshot.notes.delete(path);
	return dropped;
}

/** Whether two lists hold the same hits (the time they were made aside). */
export function sameList(a: SnapshotEntry, b: SnapshotEntry): boolean {
	// As written: relevance to the per mille, key order aside.
	const canonical = (e: SnapshotEntry): string => {
		const ids: string[] = [];
		const id = (p: string): number => ids.push(p) - 1;
		return JSON.stringify([Math.round(e.mtime), e.hits.map((h) => encodeHit(h, id)), ids]);
	};
	return canonical(a) === canonical(b);
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
		components: { vector: 0, lexical: 0, heat: 0, fusion: null, rerank: null, title: null, note: null, page: null, pointer: null },
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
