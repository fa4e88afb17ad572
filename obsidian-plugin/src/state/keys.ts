/**
 * One key map for every result list (search modal and sidebar), following Obsidian's own
 * Quick switcher where it has a key, and Omnisearch for inserting a link:
 *
 *   ↵                open at the passage          (Quick switcher: open)
 *   Mod ↵            open in a new tab            (Quick switcher)
 *   Mod Alt ↵        open to the right            (Quick switcher)
 *   Alt ↵            insert a link at the cursor  (Omnisearch)
 *   Mod Shift ↵      explain the result           (unused by both)
 *
 * Shift ↵ is left alone: in Quick switcher it creates a note, so it must not do something else
 * here. Nothing acts while an input method composes (Chinese, Japanese): that Enter ends the
 * composition. Pure, so both places are tested against the same table.
 */

export type RowAction = "open" | "open-tab" | "open-split" | "insert-link" | "explain";

export interface KeyLike {
	key: string;
	ctrlKey: boolean;
	metaKey: boolean;
	altKey: boolean;
	shiftKey: boolean;
	isComposing?: boolean;
}

/** The action for a key press on a result, or null when the key is not ours. */
export function rowAction(evt: KeyLike, isMac: boolean): RowAction | null {
	if (evt.key !== "Enter" || evt.isComposing) return null;
	const mod = isMac ? evt.metaKey : evt.ctrlKey;
	const other = isMac ? evt.ctrlKey : evt.metaKey;
	if (other) return null;
	if (mod && evt.altKey && !evt.shiftKey) return "open-split";
	if (mod && evt.shiftKey && !evt.altKey) return "explain";
	if (mod && !evt.altKey && !evt.shiftKey) return "open-tab";
	if (evt.altKey && !mod && !evt.shiftKey) return "insert-link";
	if (!mod && !evt.altKey && !evt.shiftKey) return "open";
	return null;
}

/** The modifier sets that `rowAction` answers to, for registering them on a Scope. */
export const ROW_KEY_MODIFIERS = [[], ["Mod"], ["Mod", "Alt"], ["Alt"], ["Mod", "Shift"]] as const;

/** The keys in words, for instructions, tooltips and the README. */
export function keyHelp(isMac: boolean): { keys: string; action: string }[] {
	const mod = isMac ? "⌘" : "Ctrl";
	return [
		{ keys: "↵", action: "to open" },
		{ keys: `${mod} ↵`, action: "to open in a new tab" },
		{ keys: `${mod} Alt ↵`, action: "to open to the right" },
		{ keys: "Alt ↵", action: "to insert a link" },
		{ keys: `${mod} Shift ↵`, action: "to explain" },
	];
}

/** "Enter opens, Ctrl+Enter opens in a new tab, ..." for labels read aloud. */
export function keyHelpSentence(isMac: boolean): string {
	const mod = isMac ? "Cmd" : "Ctrl";
	return `Enter opens, ${mod}+Enter opens in a new tab, ${mod}+Alt+Enter opens to the right, Alt+Enter inserts a link, ${mod}+Shift+Enter explains`;
}

/** The explain key for a tooltip: "Ctrl+Shift+Enter". */
export function explainKey(isMac: boolean): string {
	return `${isMac ? "Cmd" : "Ctrl"}+Shift+Enter`;
}
