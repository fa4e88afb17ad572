/**
 * Which vault paths the user excluded (settings → "Excluded folders and patterns").
 *
 * A pattern is a folder (`Templates` or `Templates/`: everything below it), a glob (`*` within
 * one path segment, `**` across segments, `?` one character) or an exact path. Matching is
 * case-sensitive, like Obsidian's own paths.
 */

function globToRegExp(glob: string): RegExp {
	let out = "";
	for (let i = 0; i < glob.length; i++) {
		const c = glob.charAt(i);
		if (c === "*") {
			if (glob.charAt(i + 1) === "*") {
				i++;
				if (glob.charAt(i + 1) === "/") {
					i++;
					out += "(?:.*/)?";
				} else {
					out += ".*";
				}
			} else {
				out += "[^/]*";
			}
		} else if (c === "?") {
			out += "[^/]";
		} else {
			out += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
		}
	}
	return new RegExp(`^${out}$`);
}

export type PathFilter = (path: string) => boolean;

/** A predicate that is true for excluded paths. */
export function compileExcludes(patterns: readonly string[]): PathFilter {
	const tests: PathFilter[] = [];
	for (const raw of patterns) {
		const pattern = raw.trim().replace(/^\/+/, "");
		if (!pattern) continue;
		if (/[*?]/.test(pattern)) {
			const re = globToRegExp(pattern.replace(/\/+$/, ""));
			tests.push((path) => re.test(path));
		} else {
			const folder = pattern.replace(/\/+$/, "");
			tests.push((path) => path === folder || path.startsWith(`${folder}/`));
		}
	}
	return (path) => tests.some((test) => test(path));
}
