/**
 * Keeps the related-notes snapshot current on the desktop, and reads it where it is only read
 * (the phone). The desktop loads every part, and after each index pass fetches the lists that
 * may have changed (planRefresh: new or edited notes, and the notes that list one of them or a
 * deleted one; then one hop further, the notes an edited note now lists) in batches, and writes
 * the parts whose lists changed at the end (and every CHECKPOINT_BATCHES batches of a long one).
 * Each part is encoded a chunk at a time with a pause (a macrotask) between chunks and parts, so
 * Obsidian's main thread never blocks on the whole snapshot. The phone reads the part of the open
 * note only, when it is first asked for (loadPartOf), and again when a sync replaced it (reread).
 * An older plugin's single file is read too, until the first write in parts replaces it (it is
 * deleted then). One update runs at a time; asking again while one runs queues exactly one more.
 * Files go through injected functions (Obsidian's adapter in the plugin's folder in production),
 * so nothing here touches a file.
 */
import type { RelatedHit } from "../api/types";
import type { Clock } from "./clock";
import {
	boundSnapshot,
	decodeSnapshot,
	emptySnapshot,
	encodePart,
	entryOf,
	MAX_TOP,
	type NoteFile,
	PARTS,
	partFile,
	partOf,
	planRefresh,
	sameList,
	type Snapshot,
	type SnapshotEntry,
	SNAPSHOT_FILE,
} from "./snapshot";

/** Write the changed parts every this many batches during a long update (a first build). */
const CHECKPOINT_BATCHES = 20;

export interface RelatedBatch {
	notes: { path: string; results: RelatedHit[] }[];
	/** Paths the index does not hold (not indexed yet, excluded): no list for them. */
	missing: string[];
}

/** The snapshot's files, by name relative to the plugin's folder ("snapshot/part-07.json"). */
export interface SnapshotFiles {
	/** The file's text, null when it is absent. */
	read(name: string): Promise<string | null>;
	write(name: string, text: string): Promise<void>;
	/** Deletes the file (nothing when it is absent). */
	remove(name: string): Promise<void>;
	/** What identifies the file's version on disk (its mtime and size), null when absent. */
	stamp?(name: string): Promise<string | null>;
}

export interface KeeperDeps {
	relatedMany(paths: string[], top: number): Promise<RelatedBatch>;
	/** The vault's notes as they are now (excluded ones left out). */
	listNotes(): NoteFile[];
	/** Whether a listed path is still in the vault (default: among listNotes()). */
	exists?: (path: string) => boolean;
	files: SnapshotFiles;
	clock: Clock;
	/** Notes per request (default 50: one request holds one of the sidecar's query threads). */
	batchSize?: number;
	/** Lets the app run between two chunks of encoding (default: a macrotask, setTimeout 0). */
	pause?: () => Promise<void>;
	/** Says a part was skipped because it could not be read (default: console.warn). */
	warn?: (message: string) => void;
}

export interface UpdateReport {
	refreshed: number;
	removed: number;
	/** Parts written by this update, and their bytes. */
	parts: number;
	bytes: number;
	ms: number;
}

const macrotask = (): Promise<void> => new Promise<void>((resolve) => window.setTimeout(resolve, 0));

export class SnapshotKeeper {
	snapshot: Snapshot = emptySnapshot(MAX_TOP);
	private readonly deps: KeeperDeps;
	private running: Promise<UpdateReport | null> | null = null;
	private queued = false;
	private disposed = false;
	private loaded: Promise<void> | null = null;
	/** The parts read or written here, by number: the stamp of the version seen (null: absent). */
	private readonly seen = new Map<number, string | null>();
	/** The older single file's stamp as last read (undefined: not looked at). */
	private legacySeen: string | null | undefined = undefined;
	/** The older single file is on disk: the next write writes every part, then deletes it. */
	private legacyPresent = false;
	/** Parts whose lists changed since they were last written. */
	private readonly dirty = new Set<number>();

	constructor(deps: KeeperDeps) {
		this.deps = deps;
	}

	/** Reads every part (and an older single file), as the desktop does before updating. */
	load(): Promise<void> {
		this.loaded ??= (async () => {
			await this.readLegacy();
			for (let i = 0; i < PARTS; i++) if (!this.seen.has(i)) await this.readPart(i);
		})();
		return this.loaded;
	}

	/**
	 * Reads the part that holds `path`'s list, if it was not read yet (the phone, a note opened):
	 * falls back to the older single file when the part is not there. True when it read a list.
	 */
	async loadPartOf(path: string): Promise<boolean> {
		const part = partOf(path);
		if (this.loaded || this.seen.has(part)) return false;
		const read = await this.readPart(part);
		if (this.seen.get(part) !== null || this.legacySeen !== undefined) return read;
		return this.readLegacy();
	}

	/** Whether `path`'s part was read (or written) here already. */
	hasPartOf(path: string): boolean {
		return this.loaded !== null || this.seen.has(partOf(path));
	}

	/**
	 * Reads again the parts (and the older single file) that are not the versions read or written
	 * here: a sync (Obsidian Sync, iCloud, Syncthing) replaced them from the desktop. Only where
	 * nothing here writes them (the phone): a keeper that is updating wins over the copies on
	 * disk. True when a list changed.
	 */
	async reread(): Promise<boolean> {
		if (!this.deps.files.stamp || this.running) return false;
		let changed = false;
		if (this.legacySeen !== undefined && (await this.stampOf(SNAPSHOT_FILE)) !== this.legacySeen) {
			changed = (await this.readLegacy()) || changed;
		}
		for (const [part, stamp] of [...this.seen]) {
			if ((await this.stampOf(partFile(part))) !== stamp) changed = (await this.readPart(part)) || changed;
		}
		return changed;
	}

	/** Resolves when no update is running (tests wait on it). */
	async settled(): Promise<void> {
		while (this.running) await this.running.catch(() => null);
	}

	private async stampOf(name: string): Promise<string | null> {
		return (await this.deps.files.stamp?.(name).catch(() => null)) ?? null;
	}

	private warn(message: string): void {
		(this.deps.warn ?? ((m: string) => console.warn(m)))(message);
	}

	/** Reads one part: its lists replace the ones held for it. True when it read one. */
	private async readPart(part: number): Promise<boolean> {
		const name = partFile(part);
		let text: string | null;
		const stamp = await this.stampOf(name);
		try {
			text = await this.deps.files.read(name);
		} catch {
			text = null;
		}
		this.seen.set(part, text === null ? null : stamp);
		if (text === null) return false;
		const snap = decodeSnapshot(text);
		if (!snap) {
			this.warn(`Vaultheat: the related notes snapshot's ${name} could not be read; skipped (the desktop writes it again).`);
			this.dirty.add(part);
			return false;
		}
		for (const path of [...this.snapshot.notes.keys()]) if (partOf(path) === part) this.snapshot.notes.delete(path);
		for (const [path, entry] of snap.notes) if (partOf(path) === part) this.snapshot.notes.set(path, entry);
		this.snapshot.updated = Math.max(this.snapshot.updated, snap.updated);
		this.snapshot.top = snap.top;
		return true;
	}

	/** Reads an older plugin's single file: its lists, for the parts not read from their own file. */
	private async readLegacy(): Promise<boolean> {
		this.legacySeen = await this.stampOf(SNAPSHOT_FILE);
		let text: string | null;
		try {
			text = await this.deps.files.read(SNAPSHOT_FILE);
		} catch {
			text = null;
		}
		this.legacyPresent = text !== null;
		if (text === null) return false;
		const snap = decodeSnapshot(text);
		if (!snap) {
			this.warn(`Vaultheat: the older related notes snapshot (${SNAPSHOT_FILE}) could not be read; skipped.`);
			return false;
		}
		const fromParts = (path: string): boolean => {
			const stamp = this.seen.get(partOf(path));
			return stamp !== undefined && stamp !== null;
		};
		for (const [path, entry] of snap.notes) if (!fromParts(path)) this.snapshot.notes.set(path, entry);
		this.snapshot.updated = Math.max(this.snapshot.updated, snap.updated);
		this.snapshot.top = snap.top;
		return true;
	}

	/** Brings the snapshot up to date with the index; resolves with what it did. */
	update(): Promise<UpdateReport | null> {
		if (this.running) {
			this.queued = true;
			return this.running;
		}
		const run = async (): Promise<UpdateReport | null> => {
			let report: UpdateReport | null = null;
			do {
				this.queued = false;
				report = await this.once();
			} while (this.queued && !this.disposed);
			return report;
		};
		this.running = run().finally(() => {
			this.running = null;
		});
		return this.running;
	}

	/** Forgets every list and fetches them all again (a new model, or asked for): every part is rewritten. */
	rebuild(): Promise<UpdateReport | null> {
		this.snapshot = emptySnapshot(MAX_TOP);
		for (let i = 0; i < PARTS; i++) this.dirty.add(i);
		return this.update();
	}

	dispose(): void {
		this.disposed = true;
	}

	private put(path: string, entry: SnapshotEntry): void {
		const before = this.snapshot.notes.get(path);
		this.snapshot.notes.set(path, entry);
		// The same list made again: nothing to write (its new time goes with the part's next write).
		if (!before || !sameList(before, entry)) this.dirty.add(partOf(path));
	}

	private drop(path: string): void {
		if (this.snapshot.notes.delete(path)) this.dirty.add(partOf(path));
	}

	private async once(): Promise<UpdateReport | null> {
		await this.load();
		const { clock } = this.deps;
		const started = clock.now();
		const files = this.deps.listNotes();
		const mtimes = new Map(files.map((f) => [f.path, f.mtime]));
		const work = planRefresh(this.snapshot, files, this.deps.exists);
		for (const path of work.remove) this.drop(path);
		const own = new Set(work.refresh.filter((p) => {
			const entry = this.snapshot.notes.get(p);
			return !entry || entry.mtime !== mtimes.get(p);
		}));
		const fetched = await this.fetch(work.refresh, mtimes);
		if (fetched === null) return null;
		// One hop further: the notes an edited note now lists probably list it back.
		const done = new Set(work.refresh);
		const next = new Set<string>();
		for (const path of own) {
			for (const hit of this.snapshot.notes.get(path)?.hits ?? []) if (!done.has(hit.path) && mtimes.has(hit.path)) next.add(hit.path);
		}
		const more = await this.fetch([...next], mtimes);
		if (more === null) return null;
		const written = await this.write();
		return { refreshed: fetched + more, removed: work.remove.length, ...written, ms: clock.now() - started };
	}

	/** Writes the parts whose lists changed (every part the first time after an older single file). */
	private async write(): Promise<{ parts: number; bytes: number }> {
		for (const path of boundSnapshot(this.snapshot)) this.dirty.add(partOf(path));
		if (this.legacyPresent) for (let i = 0; i < PARTS; i++) this.dirty.add(i);
		if (this.dirty.size === 0) return { parts: 0, bytes: 0 };
		const pause = this.deps.pause ?? macrotask;
		this.snapshot.updated = this.deps.clock.now();
		const parts = [...this.dirty].sort((a, b) => a - b);
		this.dirty.clear();
		const wanted = new Set(parts);
		const groups = new Map<number, [string, SnapshotEntry][]>();
		for (const part of parts) groups.set(part, []);
		let n = 0;
		for (const row of this.snapshot.notes) {
			const part = partOf(row[0]);
			if (wanted.has(part)) groups.get(part)!.push(row);
			if (++n % 5000 === 0) await pause();
		}
		let bytes = 0;
		for (let i = 0; i < parts.length; i++) {
			const part = parts[i]!;
			await pause();
			const text = await encodePart(groups.get(part)!, { part, updated: this.snapshot.updated, top: this.snapshot.top }, pause);
			const name = partFile(part);
			try {
				await this.deps.files.write(name, text);
			} catch (err) {
				for (const p of parts.slice(i)) this.dirty.add(p); // written next time
				throw err;
			}
			this.seen.set(part, await this.stampOf(name));
			bytes += new TextEncoder().encode(text).length;
		}
		if (this.legacyPresent) {
			await this.deps.files.remove(SNAPSHOT_FILE);
			this.legacyPresent = false;
			this.legacySeen = null;
		}
		return { parts: parts.length, bytes };
	}

	/** Fetches and stores the lists of `paths`; null when disposed midway. */
	private async fetch(paths: readonly string[], mtimes: ReadonlyMap<string, number>): Promise<number | null> {
		const size = this.deps.batchSize ?? 50;
		let count = 0;
		for (let i = 0; i < paths.length; i += size) {
			if (this.disposed) return null;
			const batch = paths.slice(i, i + size);
			const answer = await this.deps.relatedMany(batch, this.snapshot.top);
			const at = this.deps.clock.now();
			for (const note of answer.notes) {
				this.put(note.path, entryOf(note.path, note.results, mtimes.get(note.path) ?? 0, at, this.snapshot.top));
				count++;
			}
			for (const path of answer.missing) this.drop(path);
			// A first build of a large vault takes a while: keep what is fetched if it is cut short.
			if ((i / size + 1) % CHECKPOINT_BATCHES === 0 && i + size < paths.length) await this.write();
		}
		return count;
	}
}
