/**
 * Search results grouped by note: one row per note (its best passage, in rank order) and the
 * other passages of the same note behind "+2 more passages", so no note is listed twice.
 */
import type { SearchHit } from "../api/types";

export interface NoteGroup {
	/** The note's best passage: the row's title, snippet and target. */
	hit: SearchHit;
	/** The note's other matching passages, best first. */
	more: SearchHit[];
}

export function groupByNote(hits: readonly SearchHit[]): NoteGroup[] {
	const groups = new Map<string, NoteGroup>();
	for (const hit of hits) {
		const group = groups.get(hit.path);
		if (group) group.more.push(hit);
		else groups.set(hit.path, { hit, more: [] });
	}
	return [...groups.values()];
}

/** "Also in 3 notes that quote it": the notes folded into the group's passages (a digest that repeats the passage). */
export function quotedInText(group: NoteGroup): string {
	const paths = new Set([group.hit, ...group.more].flatMap((h) => h.duplicates));
	const n = paths.size;
	return n === 0 ? "" : `Also in ${n} ${n === 1 ? "note that repeats" : "notes that repeat"} it`;
}

/** The folded notes' paths, for the line's tooltip. */
export function quotedInPaths(group: NoteGroup): string[] {
	return [...new Set([group.hit, ...group.more].flatMap((h) => h.duplicates))];
}

export function morePassagesText(group: NoteGroup): string {
	const n = group.more.length;
	return n === 0 ? "" : `+${n} more ${n === 1 ? "passage" : "passages"}`;
}
