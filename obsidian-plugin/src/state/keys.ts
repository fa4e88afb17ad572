/**
 * One key map for every result list (search modal and sidebar), as in Quick switcher and
 * Omnisearch: Enter opens, Mod+Enter opens in a new tab, Alt+Enter inserts a link, and
 * Shift+Enter explains. Pure, so both places are tested against the same table.
 */

export type RowAction = "open" | "open-tab" | "insert-link" | "explain";

export interface KeyLike {
	key: string;
	ctrlKey: boolean;
	metaKey: boolean;
	altKey: boolean;
	shiftKey: boolean;
}

/** The action for a key press on a result, or null when the key is not ours. */
export function rowAction(evt: KeyLike, isMac: boolean): RowAction | null {
	if (evt.key !== "Enter") return null;
	const mod = isMac ? evt.metaKey : evt.ctrlKey;
	if (evt.altKey) return "insert-link";
	if (evt.shiftKey) return "explain";
	if (mod) return "open-tab";
	return "open";
}

/** The keys in words, for instructions, tooltips and the README. */
export function keyHelp(isMac: boolean): { keys: string; action: string }[] {
	const mod = isMac ? "⌘" : "Ctrl";
	return [
		{ keys: "↵", action: "to open" },
		{ keys: `${mod} ↵`, action: "to open in a new tab" },
		{ keys: "Alt ↵", action: "to insert a link" },
		{ keys: "Shift ↵", action: "to explain" },
	];
}

/** "Enter opens, Ctrl+Enter opens in a new tab, Alt+Enter inserts a link, Shift+Enter explains." */
export function keyHelpSentence(isMac: boolean): string {
	const mod = isMac ? "Cmd" : "Ctrl";
	return `Enter opens, ${mod}+Enter opens in a new tab, Alt+Enter inserts a link, Shift+Enter explains`;
}
