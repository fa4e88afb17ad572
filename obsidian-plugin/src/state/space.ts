/**
 * Which vector space scored a result (an index with a second, multilingual space; the sidecar's
 * `space` field, absent with one space). Results read in the multilingual space get a small
 * marker whose tooltip says why; English ones and one-space indexes get none.
 */
import type { VectorSpaceName } from "../api/types";

/** The marker's text and tooltip for a result read in the multilingual space; null otherwise. */
export function spaceMark(
	hit: { space?: VectorSpaceName },
	kind: "search" | "related",
): { text: string; tooltip: string } | null {
	if (hit.space !== "multilingual") return null;
	const why = kind === "search" ? "the query or this passage is not in English" : "this note or the open note is not in English";
	return { text: "Multilingual", tooltip: `Matched in the multilingual space: ${why}` };
}

/** The one line shown while the last answer read a multilingual space that is still being filled. */
export const PARTIAL_SPACE_NOTICE = "Multilingual vectors are still being built; results in other languages may be missing.";
