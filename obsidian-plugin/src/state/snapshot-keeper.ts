/**
 * Keeps the related-notes snapshot current on the desktop: loads it, and after each index pass
 * fetches the lists that may have changed (planRefresh: new or edited notes, and the notes that
 * list one of them or a deleted one; then one hop further, the notes an edited note now lists)
 * in batches, and writes the file at the end (and every CHECKPOINT_BATCHES batches of a long one). One update runs at a time; asking again while
 * one runs queues exactly one more. Reading and writing go through injected functions
 * (Obsidian's adapter in the plugin's folder in production), so nothing here touches a file.
 */
import type { RelatedHit } from "../api/types";
import type { Clock } from "./clock";
import {
	boundSnapshot,
	decodeSnapshot,
	emptySnapshot,
	encodeSnapshot,
	entryOf,
	MAX_TOP,
	type NoteFile,
	planRefresh,
	type Snapshot,
} from "./snapshot";

/** Write the file every this many batches during a long update (a first build). */
const CHECKPOINT_BATCHES = 20;

export interface RelatedBatch {
	notes: { path: string; results: RelatedHit[] }[];
	/** Paths the index does not hold (not indexed yet, excluded): no list for them. */
	missing: string[];
}

export interface KeeperDeps {
	relatedMany(paths: string[], top: number): Promise<RelatedBatch>;
	/** The vault's notes as they are now (excluded ones left out). */
	listNotes(): NoteFile[];
	/** Whether a listed path is still in the vault (default: among listNotes()). */
	exists?: (path: string) => boolean;
	load(): Promise<string | null>;
	save(text: string): Promise<void>;
	/** What identifies the file's version on disk (its mtime and size), null when absent. */
	stamp?: () => Promise<string | null>;
	clock: Clock;
	/** Notes per request (default 50: one request holds one of the sidecar's query threads). */
	batchSize?: number;
}

export interface UpdateReport {
	refreshed: number;
	removed: number;
	bytes: number;
	ms: number;
}

export class SnapshotKeeper {
	snapshot: Snapshot = emptySnapshot(MAX_TOP);
	private readonly deps: KeeperDeps;
	private running: Promise<UpdateReport | null> | null = null;
	private queued = false;
	private disposed = false;
	private loaded: Promise<void> | null = null;
	/** The stamp of the file as last read or written here. */
	private seen: string | null = null;

	constructor(deps: KeeperDeps) {
		this.deps = deps;
	}

	/** Reads the file written last time (an unreadable or foreign one starts afresh). */
	load(): Promise<void> {
		this.loaded ??= this.readFile().then(() => undefined);
		return this.loaded;
	}

	/**
	 * Reads the file again when it is not the version read or written here: a sync (Obsidian
	 * Sync, iCloud, Syncthing) replaced it from the desktop. Only where nothing here writes it
	 * (the phone): a keeper that is updating wins over the copy on disk. True when it changed.
	 */
	async reread(): Promise<boolean> {
		if (!this.deps.stamp || this.running) return false;
		await this.load();
		const stamp = await this.deps.stamp().catch(() => null);
		if (stamp === null || stamp === this.seen) return false;
		return this.readFile();
	}

	private async readFile(): Promise<boolean> {
		try {
			const stamp = (await this.deps.stamp?.().catch(() => null)) ?? null;
			const text = await this.deps.load();
			this.seen = stamp;
			const snap = text === null ? null : decodeSnapshot(text);
			if (!snap) return false;
			this.snapshot = snap;
			return true;
		} catch {
			return false;
		}
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

	/** Forgets every list and fetches them all again (a new model, or asked for). */
	rebuild(): Promise<UpdateReport | null> {
		this.snapshot = emptySnapshot(MAX_TOP);
		return this.update();
	}

	dispose(): void {
		this.disposed = true;
	}

	private async once(): Promise<UpdateReport | null> {
		await this.load();
		const { clock } = this.deps;
		const started = clock.now();
		const files = this.deps.listNotes();
		const mtimes = new Map(files.map((f) => [f.path, f.mtime]));
		const work = planRefresh(this.snapshot, files, this.deps.exists);
		for (const path of work.remove) this.snapshot.notes.delete(path);
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
		if (fetched + more === 0 && work.remove.length === 0 && this.snapshot.updated !== 0) {
			return { refreshed: 0, removed: 0, bytes: 0, ms: clock.now() - started };
		}
		const text = await this.write();
		return { refreshed: fetched + more, removed: work.remove.length, bytes: new TextEncoder().encode(text).length, ms: clock.now() - started };
	}

	private async write(): Promise<string> {
		boundSnapshot(this.snapshot);
		this.snapshot.updated = this.deps.clock.now();
		const text = encodeSnapshot(this.snapshot);
		await this.deps.save(text);
		this.seen = (await this.deps.stamp?.().catch(() => null)) ?? null;
		return text;
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
				this.snapshot.notes.set(note.path, entryOf(note.path, note.results, mtimes.get(note.path) ?? 0, at, this.snapshot.top));
				count++;
			}
			for (const path of answer.missing) this.snapshot.notes.delete(path);
			// A first build of a large vault takes a while: keep what is fetched if it is cut short.
			if ((i / size + 1) % CHECKPOINT_BATCHES === 0 && i + size < paths.length) await this.write();
		}
		return count;
	}
}
