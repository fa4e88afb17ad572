/**
 * Text helpers shared by the views and controllers: offsets the server understands, and short
 * readable snippets. The server counts in UTF-8 bytes; the editor in UTF-16 code units.
 */

const encoder = new TextEncoder();

/** UTF-8 byte offset of the UTF-16 offset `charOffset` in `text`. */
export function utf8Offset(text: string, charOffset: number): number {
	const end = Math.max(0, Math.min(text.length, charOffset));
	let bytes = 0;
	for (let i = 0; i < end; i++) {
		const code = text.charCodeAt(i);
		if (code < 0x80) bytes += 1;
		else if (code < 0x800) bytes += 2;
		else if (code >= 0xd800 && code <= 0xdbff && i + 1 < end) {
			const next = text.charCodeAt(i + 1);
			if (next >= 0xdc00 && next <= 0xdfff) {
				bytes += 4;
				i++;
			} else bytes += 3;
		} else bytes += 3;
	}
	return bytes;
}

export function utf8Length(text: string): number {
	return encoder.encode(text).length;
}

/**
 * A chunk's text as a one-paragraph snippet: frontmatter, the leading heading line, heading
 * marks, quote and callout marks, list bullets, emphasis and link brackets are dropped,
 * fenced code blocks, comments, HTML tags, block ids, footnote marks and table rules too
 * (a passage that is only code keeps its code, without the fences), whitespace collapsed, the
 * result cut at a word.
 */
export function toSnippet(text: string, maxChars = 240): string {
	let s = text.replace(/\r\n?/g, "\n").replace(/^\uFEFF/, "");
	s = s.replace(/^---\n[\s\S]*?\n---\n?/, "");
	s = s.replace(/%%[\s\S]*?%%/g, " ").replace(/<!--[\s\S]*?-->/g, " ");
	const withoutCode = s.replace(/^(\s*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n\s*\2[^\n]*|$(?![\s\S]))/gm, " ");
	s = withoutCode.trim() ? withoutCode : s.replace(/^\s*(`{3,}|~{3,})[^\n]*$/gm, " ");
	s = s.replace(/<\/?[a-zA-Z][^>]*>/g, " ");
	s = s.replace(/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/gm, " ").replace(/^[ \t]*\||\|[ \t]*$/gm, " ").replace(/[ \t]\|[ \t]/g, " · ");
	s = s.replace(/\s\^[\w-]+$/gm, "").replace(/\[\^[^\]]+\]/g, "");
	s = s.replace(/\$\$[\s\S]*?\$\$/g, " ");
	// The chunk's own heading is shown beside the snippet already.
	s = s.replace(/^\s*#{1,6}\s+[^\n]*\n+(?=\s*\S)/, "");
	s = s.replace(/^#{1,6}\s+/gm, "");
	s = s.replace(/^\s*>\s?/gm, "").replace(/\[![\w-]+\][+-]?\s*/g, "");
	s = s.replace(/^\s*(?:[-*+]|\d+\.)\s+(?:\[[ xX]\]\s+)?/gm, "");
	s = s.replace(/!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]/g, (_m, target: string, alias?: string) => alias ?? target);
	s = s.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1");
	s = s.replace(/(\*\*|__|==|~~)(.+?)\1/g, "$2");
	s = s.replace(/`{1,3}/g, "");
	s = s.replace(/\s+/g, " ").trim();
	if (s.length <= maxChars) return s;
	const cut = s.slice(0, maxChars);
	const space = cut.lastIndexOf(" ");
	return `${(space > maxChars * 0.6 ? cut.slice(0, space) : cut).replace(/[\s.,;:]+$/, "")}…`;
}

/** "Folder/Sub" of "Folder/Sub/Note.md"; "" at the vault root. */
export function folderOf(path: string): string {
	const slash = path.lastIndexOf("/");
	return slash === -1 ? "" : path.slice(0, slash);
}

/** "Note" of "Folder/Note.md". */
export function basename(path: string): string {
	const name = path.slice(path.lastIndexOf("/") + 1);
	return name.toLowerCase().endsWith(".md") ? name.slice(0, -3) : name;
}

/** Query words (3+ letters, lowercased, unique) for highlighting matches in snippets. */
export function queryTerms(query: string): string[] {
	const words = query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];
	return [...new Set(words)];
}

export interface TextPart {
	text: string;
	match: boolean;
}

/** Splits `text` into plain and matching parts (whole-word prefix matches of `terms`). */
export function highlightParts(text: string, terms: readonly string[]): TextPart[] {
	if (terms.length === 0) return [{ text, match: false }];
	const escaped = terms.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
	const re = new RegExp(`(^|[^\\p{L}\\p{N}])((?:${escaped.join("|")})[\\p{L}\\p{N}]*)`, "giu");
	const parts: TextPart[] = [];
	let last = 0;
	for (const m of text.matchAll(re)) {
		const start = m.index + (m[1] ?? "").length;
		const word = m[2] ?? "";
		if (start > last) parts.push({ text: text.slice(last, start), match: false });
		parts.push({ text: word, match: true });
		last = start + word.length;
	}
	if (last < text.length) parts.push({ text: text.slice(last), match: false });
	return parts;
}
