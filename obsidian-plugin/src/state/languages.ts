/**
 * Languages in words: the names of the ISO 639-1 codes the sidecar's language identifier
 * gives, which vector space scored a passage and why (explain's `space`), and the index's
 * passages per language (status's `languages`). Pure, so the sentences are tested as read.
 */
import type { VectorSpace } from "../api/types";

const NAMES: Record<string, string> = {
	en: "English",
	de: "German",
	fr: "French",
	es: "Spanish",
	it: "Italian",
	pt: "Portuguese",
	nl: "Dutch",
	sv: "Swedish",
	da: "Danish",
	no: "Norwegian",
	nb: "Norwegian",
	fi: "Finnish",
	pl: "Polish",
	cs: "Czech",
	sk: "Slovak",
	hu: "Hungarian",
	ro: "Romanian",
	el: "Greek",
	tr: "Turkish",
	ru: "Russian",
	uk: "Ukrainian",
	be: "Belarusian",
	bg: "Bulgarian",
	sr: "Serbian",
	hr: "Croatian",
	ar: "Arabic",
	he: "Hebrew",
	fa: "Persian",
	hi: "Hindi",
	bn: "Bengali",
	th: "Thai",
	vi: "Vietnamese",
	id: "Indonesian",
	ms: "Malay",
	zh: "Chinese",
	ja: "Japanese",
	ko: "Korean",
	ca: "Catalan",
	eo: "Esperanto",
	la: "Latin",
	und: "an unknown language",
};

/** "German" for "de"; the code itself for one not listed (case as the sidecar sent it). */
export function languageName(code: string): string {
	return NAMES[code.toLowerCase()] ?? code;
}

/** Read in the English space: English, and text too short to tell ("und"), as the sidecar routes. */
function readsAsEnglish(code: string): boolean {
	return code === "en" || code === "und";
}

/**
 * Which space scored the passage and why, in one line:
 * "Scored in the multilingual space: the query is in German",
 * "Scored in the multilingual space: this passage is in German, the query in English",
 * "Scored in the English space: this passage has no multilingual vector yet",
 * "Scored in the English space: the query and this passage are in English";
 * " (still filling)" after it while the multilingual space is being filled.
 */
export function spaceSentence(space: VectorSpace): string {
	const query = languageName(space.query_language);
	const chunk = languageName(space.chunk_language);
	let why: string;
	if (space.space === "multilingual") {
		why = readsAsEnglish(space.query_language) ? `this passage is in ${chunk}, the query in ${query}` : `the query is in ${query}`;
	} else if (!readsAsEnglish(space.query_language) || !readsAsEnglish(space.chunk_language)) {
		why = "this passage has no multilingual vector yet";
	} else {
		why = "the query and this passage are in English";
	}
	const name = space.space === "multilingual" ? "multilingual" : "English";
	return `Scored in the ${name} space: ${why}${space.partial ? " (still filling)" : ""}`;
}

const LANGUAGES_SHOWN = 5;

/**
 * Passages per language, most first: "English 1,234 · German 12", the rest counted as
 * "3 more" past five languages, "not detected yet 40" for the sidecar's "pending".
 * "" when the sidecar sent none (an older server) or every count is 0.
 */
export function languagesWords(languages: Record<string, number> | undefined): string {
	if (!languages) return "";
	const n = (v: number): string => v.toLocaleString("en-US");
	const entries = Object.entries(languages).filter(([, count]) => count > 0);
	const pending = entries.find(([code]) => code === "pending");
	const known = entries.filter(([code]) => code !== "pending").sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
	const shown = known.slice(0, LANGUAGES_SHOWN).map(([code, count]) => `${code === "und" ? "Unknown" : languageName(code)} ${n(count)}`);
	const rest = known.length - LANGUAGES_SHOWN;
	if (rest > 0) shown.push(`${rest} more`);
	if (pending) shown.push(`not detected yet ${n(pending[1])}`);
	return shown.join(" · ");
}
