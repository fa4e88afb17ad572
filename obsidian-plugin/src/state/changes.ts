/**
 * Forwards vault changes to POST /v1/notes/changed, batched.
 *
 * Obsidian fires one event per file operation; a save, a rename of a folder or a sync can fire
 * dozens within milliseconds. Events wait `delayMs` (250 ms: the index still follows within a
 * second) and go as one batch, coalesced per path. Only Markdown files outside the user's
 * excluded patterns are sent. A batch that fails is dropped: the sidecar rescans the vault when
 * it starts and on its own schedule, so nothing is lost for good.
 */
import type { ChangeEvent } from "../api/types";
import type { Clock } from "./clock";
import type { PathFilter } from "./exclude";

export const CHANGE_DELAY_MS = 250;

/**
 * Collapses a batch to one event per path, keeping what the server needs to know: a note
 * created then edited is a create, created then deleted is nothing, deleted then created is a
 * modify, and a renamed note that is then deleted is a delete of its old path.
 */
export function coalesce(events: readonly ChangeEvent[]): ChangeEvent[] {
	const byPath = new Map<string, ChangeEvent>();
	const put = (event: ChangeEvent): void => {
		byPath.delete(event.path);
		byPath.set(event.path, event);
	};
	for (const event of events) {
		const previous = byPath.get(event.path);
		switch (event.type) {
			case "create":
				put(previous?.type === "delete" ? { type: "modify", path: event.path } : event);
				break;
			case "modify":
				if (!previous || previous.type === "delete") put(event);
				break;
			case "delete":
				if (previous?.type === "create") byPath.delete(event.path);
				else if (previous?.type === "rename" && previous.old_path) {
					byPath.delete(event.path);
					put({ type: "delete", path: previous.old_path });
				} else put(event);
				break;
			case "rename": {
				const old = event.old_path === undefined ? undefined : byPath.get(event.old_path);
				if (old && event.old_path !== undefined) byPath.delete(event.old_path);
				if (old?.type === "create") put({ type: "create", path: event.path });
				else if (old?.type === "rename") put({ ...event, old_path: old.old_path });
				else put(event);
				break;
			}
		}
	}
	return [...byPath.values()];
}

/** Files the sidecar indexes: notes, and PDFs and canvases (its `index.kinds` decides the rest). */
function isNote(path: string): boolean {
	return /\.(md|pdf|canvas)$/i.test(path);
}

/** The event to send for a raw vault event, given the exclusions (null: none). */
export function toChangeEvent(
	type: ChangeEvent["type"],
	path: string,
	oldPath: string | undefined,
	excluded: PathFilter,
): ChangeEvent | null {
	if (type === "rename" && oldPath !== undefined) {
		const oldIn = isNote(oldPath) && !excluded(oldPath);
		const newIn = isNote(path) && !excluded(path);
		if (oldIn && newIn) return { type: "rename", path, old_path: oldPath };
		if (oldIn) return { type: "delete", path: oldPath };
		if (newIn) return { type: "create", path };
		return null;
	}
	if (!isNote(path) || excluded(path)) return null;
	return { type, path };
}

export class ChangeQueue {
	private readonly send: (events: ChangeEvent[]) => Promise<unknown>;
	private readonly clock: Clock;
	private readonly delayMs: number;
	private pending: ChangeEvent[] = [];
	private timer: number | null = null;
	private disposed = false;

	constructor(send: (events: ChangeEvent[]) => Promise<unknown>, clock: Clock, delayMs = CHANGE_DELAY_MS) {
		this.send = send;
		this.clock = clock;
		this.delayMs = delayMs;
	}

	push(event: ChangeEvent | null): void {
		if (!event || this.disposed) return;
		this.pending.push(event);
		if (this.timer === null) {
			this.timer = this.clock.setTimeout(() => {
				this.timer = null;
				void this.flush();
			}, this.delayMs);
		}
	}

	/** Sends what is pending now; resolves when the server answered (or the send failed). */
	async flush(): Promise<void> {
		if (this.timer !== null) {
			this.clock.clearTimeout(this.timer);
			this.timer = null;
		}
		const events = coalesce(this.pending);
		this.pending = [];
		if (events.length === 0) return;
		try {
			await this.send(events);
		} catch {
			// Dropped on purpose: see the module docstring.
		}
	}

	dispose(): void {
		this.disposed = true;
		if (this.timer !== null) this.clock.clearTimeout(this.timer);
		this.timer = null;
		this.pending = [];
	}
}
