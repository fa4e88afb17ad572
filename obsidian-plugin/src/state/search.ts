/**
 * Search-as-you-type for the search modal.
 *
 * Obsidian's SuggestModal asks `getSuggestions(query)` on every keystroke and renders whatever
 * promise resolves. Here every call returns a promise that resolves with the answer to the
 * *newest* query (older ones are debounced away or dropped as stale), so whichever promise the
 * modal renders last shows current results, and an empty input answers at once.
 */
import { ApiError, toApiError } from "../api/errors";
import type { MissingRequest, SearchDoc, SearchHit, SearchRequest } from "../api/types";
import type { Clock } from "./clock";
import type { PathFilter } from "./exclude";
import { type ParsedQuery, parseSearchInput } from "./filters";
import { LatestRunner } from "./latest";
import { groupByNote, type NoteGroup } from "./group";
import { passesThreshold, type RelevanceThreshold } from "./relevance";
import { Store } from "./store";

export interface SearchState {
	input: string;
	parsed: ParsedQuery;
	results: SearchHit[];
	loading: boolean;
	error: ApiError | null;
	tookMs: number | null;
	/** Notes left out by "hide weak matches" in the last answer. */
	hiddenWeak: number;
	/** The last answer read the multilingual space while it is still being filled (cleared by the next query). */
	partialSpace: boolean;
}

/** The search view's one line while `partialSpace` is set (the related view shows it too). */
export { PARTIAL_SPACE_NOTICE } from "./space";

export interface SearchDeps {
	search(request: SearchRequest): Promise<SearchDoc>;
	options(): { top: number; debounceMs: number; rerank: boolean | undefined; excluding: boolean; threshold?: RelevanceThreshold };
	isExcluded: () => PathFilter;
	clock: Clock;
}

export function buildSearchRequest(parsed: ParsedQuery, top: number, rerank: boolean | undefined, extra: number): SearchRequest {
	const request: SearchRequest = { query: parsed.query, top: Math.min(100, top + extra) };
	if (parsed.folder) request.folder = parsed.folder;
	if (parsed.tag) request.tag = parsed.tag;
	if (parsed.property) request.property = parsed.property;
	if (rerank !== undefined) request.rerank = rerank;
	return request;
}

export class SearchController {
	readonly store = new Store<SearchState>({
		input: "",
		parsed: { query: "" },
		results: [],
		loading: false,
		error: null,
		tookMs: null,
		hiddenWeak: 0,
		partialSpace: false,
	});
	private readonly deps: SearchDeps;
	private readonly runner: LatestRunner<SearchRequest, SearchDoc>;
	private waiters: ((groups: NoteGroup[]) => void)[] = [];

	constructor(deps: SearchDeps) {
		this.deps = deps;
		this.runner = new LatestRunner<SearchRequest, SearchDoc>(
			(request) => deps.search(request),
			{
				onResult: (_request, doc, latest) => {
					const excluded = deps.isExcluded();
					const { top, threshold = "all" } = deps.options();
					// One row per note (its other passages folded in), `top` notes.
					const groups = groupByNote(doc.results.filter((hit) => !excluded(hit.path))).slice(0, top);
					const shown = groups.filter((g) => passesThreshold(g.hit, threshold));
					const results = shown.flatMap((g) => [g.hit, ...g.more]);
					this.patch({ results, error: null, tookMs: doc.took_ms, hiddenWeak: groups.length - shown.length, partialSpace: doc.partial_space === true });
					if (latest) this.release(shown);
				},
				onError: (_request, error, latest) => {
					if (!latest) return;
					this.patch({ error: error instanceof ApiError ? error : toApiError(error), results: [], partialSpace: false });
					this.release([]);
				},
				onBusy: (busy) => this.patch({ loading: busy }),
			},
			deps.clock,
		);
	}

	/** Results for `input` by note, debounced; resolves with the newest query's results. */
	query(input: string): Promise<NoteGroup[]> {
		const parsed = parseSearchInput(input);
		// The partial-space notice was about the last answer: the next query dismisses it.
		this.patch({ input, parsed, partialSpace: false });
		if (parsed.query.length < 2) {
			this.runner.cancel();
			this.patch({ results: [], error: null, loading: false });
			this.release([]);
			return Promise.resolve([]);
		}
		const { top, debounceMs, rerank, excluding } = this.deps.options();
		// Passages are grouped by note: ask for more so `top` distinct notes remain.
		this.runner.submit(buildSearchRequest(parsed, top * 3, rerank, excluding ? 10 : 0), debounceMs);
		return new Promise((resolve) => this.waiters.push(resolve));
	}

	/** The request "why isn't `path` here?" sends: this search's, as it was run, plus the note. */
	missingRequest(path: string): MissingRequest | null {
		const { parsed } = this.store.get();
		if (parsed.query.length < 2) return null;
		const { top, rerank, excluding } = this.deps.options();
		return { ...buildSearchRequest(parsed, top * 3, rerank, excluding ? 10 : 0), path };
	}

	dispose(): void {
		this.runner.dispose();
		this.release([]);
	}

	private release(groups: NoteGroup[]): void {
		const waiters = this.waiters;
		this.waiters = [];
		for (const resolve of waiters) resolve(groups);
	}

	private patch(patch: Partial<SearchState>): void {
		this.store.set({ ...this.store.get(), ...patch });
	}
}
