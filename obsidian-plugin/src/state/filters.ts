/**
 * Inline filters in the search box: `tag:project`, `path:Work/Meetings` (or `folder:`),
 * `prop:status=done`; values may be quoted (`path:"My notes"`). Everything else is the query.
 * The API takes one folder and one tag, so a repeated filter keeps the last one typed.
 */

export interface ParsedQuery {
	query: string;
	folder?: string;
	tag?: string;
	property?: Record<string, string>;
}

const FILTER = /(^|\s)(tag|path|folder|prop):(?:"([^"]*)"?|(\S*))/gi;

export function parseSearchInput(input: string): ParsedQuery {
	const out: ParsedQuery = { query: "" };
	const rest = input.replace(FILTER, (_m, lead: string, key: string, quoted?: string, bare?: string) => {
		const value = (quoted ?? bare ?? "").trim();
		if (!value) return lead;
		switch (key.toLowerCase()) {
			case "tag":
				out.tag = value.replace(/^#/, "");
				break;
			case "path":
			case "folder":
				out.folder = value.replace(/^\/+|\/+$/g, "");
				break;
			case "prop": {
				const eq = value.indexOf("=");
				if (eq > 0) out.property = { ...out.property, [value.slice(0, eq)]: value.slice(eq + 1) };
				break;
			}
		}
		return lead;
	});
	out.query = rest.replace(/\s+/g, " ").trim();
	return out;
}

/** Human summary of the active filters, for the modal's hint line. */
export function describeFilters(parsed: ParsedQuery): string {
	const parts: string[] = [];
	if (parsed.folder) parts.push(`in ${parsed.folder}/`);
	if (parsed.tag) parts.push(`tagged #${parsed.tag}`);
	for (const [k, v] of Object.entries(parsed.property ?? {})) parts.push(`${k} = ${v}`);
	return parts.join(", ");
}
