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

export function morePassagesText(group: NoteGroup): string {
	const n = group.more.length;
	return n === 0 ? "" : `+${n} more ${n === 1 ? "passage" : "passages"}`;
}
