/**
 * Opening notes at a line and inserting links: the two things every result row does.
 * `generateMarkdownLink` honours the user's link format (wikilink or Markdown, shortest path).
 */
import { type App, type Editor, MarkdownView, Notice, type PaneType } from "obsidian";

/** Opens `path` with line `line` (1-based, the server's numbering) at the top, cursor on it. */
export async function openNoteAtLine(app: App, path: string, line: number, newLeaf: PaneType | boolean = false): Promise<void> {
	const file = app.vault.getFileByPath(path);
	if (!file) {
		new Notice(`${path} is not in the vault any more.`);
		return;
	}
	const leaf = app.workspace.getLeaf(newLeaf);
	const zeroBased = Math.max(0, line - 1);
	await leaf.openFile(file, { active: true, eState: { line: zeroBased } });
	const view = leaf.view;
	if (view instanceof MarkdownView) {
		const pos = { line: Math.min(zeroBased, view.editor.lineCount() - 1), ch: 0 };
		view.editor.setCursor(pos);
		view.editor.scrollIntoView({ from: pos, to: pos }, true);
	}
}

/** Where a result points: a note's line, a PDF's page or a canvas's card (server fields). */
export interface ResultPlace {
	line_start: number;
	page?: number | null;
	/** The page of page..page_end that holds the match (newer servers); preferred to `page`. */
	open_page?: number | null;
	card_id?: string | null;
}

/** The PDF page a result opens at: the match's page when the server says it, else the chunk's first page. */
export function resultPage(place: ResultPlace): number | null {
	if (typeof place.open_page === "number" && place.open_page >= 1) return place.open_page;
	return typeof place.page === "number" && place.page >= 1 ? place.page : null;
}

/**
 * The link text that opens a result where it is: `file.pdf#page=2` for a PDF's page (the form
 * Obsidian's own PDF links use), the path otherwise (a canvas opens whole: Obsidian's public API,
 * obsidian.d.ts 1.13, has no canvas view to focus a card in; canvas.d.ts only types the file).
 */
export function resultLinktext(path: string, place: ResultPlace): string {
	const page = resultPage(place);
	return page !== null ? `${path}#page=${page}` : path;
}

/** Opens a search or related result: a note at its line, a PDF at its page, a canvas. */
export async function openResult(app: App, path: string, place: ResultPlace, newLeaf: PaneType | boolean = false): Promise<void> {
	const derived = typeof place.page === "number" || typeof place.card_id === "string" || /\.(pdf|canvas)$/i.test(path);
	if (!derived) return openNoteAtLine(app, path, place.line_start, newLeaf);
	if (!app.vault.getFileByPath(path)) {
		new Notice(`${path} is not in the vault any more.`);
		return;
	}
	await app.workspace.openLinkText(resultLinktext(path, place), "", newLeaf);
}

/**
 * The heading a link should point at: the matching passage's own section ("#Heading"), or ""
 * when the match is the note's top (no heading, or only the title heading).
 */
export function sectionSubpath(headingPath: readonly string[], title: string): string {
	const parts = headingPath.filter((h) => h.trim() !== "");
	if (parts.length === 0) return "";
	const last = parts[parts.length - 1] ?? "";
	if (parts.length === 1 && last.trim().toLowerCase() === title.trim().toLowerCase()) return "";
	// Obsidian's heading links drop the characters a link cannot hold.
	const clean = last.replace(/[#|^[\]]/g, " ").replace(/\s+/g, " ").trim();
	return clean ? `#${clean}` : "";
}

/** The link text for `path` (at `subpath`, "#Heading") as written from `sourcePath`, or null when the note is gone. */
export function linkTo(app: App, path: string, sourcePath: string, subpath = ""): string | null {
	const file = app.vault.getFileByPath(path);
	return file ? app.fileManager.generateMarkdownLink(file, sourcePath, subpath || undefined) : null;
}

/** Links to several notes as a Markdown list, one per line. */
export function linkList(app: App, targets: readonly { path: string; subpath?: string }[], sourcePath: string): string {
	return targets
		.map((t) => linkTo(app, t.path, sourcePath, t.subpath ?? ""))
		.filter((l): l is string => l !== null)
		.map((l) => `- ${l}`)
		.join("\n");
}

/** Inserts a link to `path` (at `subpath`) at the cursor of `editor` (replacing any selection). */
export function insertLink(app: App, editor: Editor | null, path: string, sourcePath: string, subpath = ""): boolean {
	if (!editor) {
		new Notice("Open a note in an editor to insert the link.");
		return false;
	}
	const link = linkTo(app, path, sourcePath, subpath);
	if (!link) {
		new Notice(`${path} is not in the vault any more.`);
		return false;
	}
	editor.replaceSelection(link);
	editor.focus();
	return true;
}

/** The Markdown editor the user last worked in (the sidebar and modals take focus from it). */
export function lastMarkdownView(app: App): MarkdownView | null {
	const active = app.workspace.getActiveViewOfType(MarkdownView);
	if (active) return active;
	const recent = app.workspace.getMostRecentLeaf();
	return recent?.view instanceof MarkdownView ? recent.view : null;
}
