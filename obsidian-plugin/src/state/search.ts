/**
 * Search-as-you-type for the search modal.
 *
 * Obsidian's SuggestModal asks `getSuggestions(query)` on every keystroke and renders whatever
 * promise resolves. Here every call returns a promise that resolves with the answer to the
 * *newest* query (older ones are debounced away or dropped as stale), so whichever promise the
 * modal renders last shows current results, and an empty input answers at once.
 */
import { ApiError, toApiError } from "../api/errors";
import type { SearchDoc, SearchHit, SearchRequest } from "../api/types";
import type { Clock } from "./clock";
import type { PathFilter } from "./exclude";
import { type ParsedQuery, parseSearchInput } from "./filters";
import { LatestRunner } from "./latest";
import { Store } from "./store";

export interface SearchState {
	input: string;
	parsed: ParsedQuery;
	results: SearchHit[];
	loading: boolean;
	error: ApiError | null;
	tookMs: number | null;
}

export interface SearchDeps {
	search(request: SearchRequest): Promise<SearchDoc>;
	options(): { top: number; debounceMs: number; rerank: boolean | undefined; excluding: boolean };
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
	});
	private readonly deps: SearchDeps;
	private readonly runner: LatestRunner<SearchRequest, SearchDoc>;
	private waiters: ((hits: SearchHit[]) => void)[] = [];

	constructor(deps: SearchDeps) {
		this.deps = deps;
		this.runner = new LatestRunner<SearchRequest, SearchDoc>(
			(request) => deps.search(request),
			{
				onResult: (_request, doc, latest) => {
					const excluded = deps.isExcluded();
					const results = doc.results.filter((hit) => !excluded(hit.path)).slice(0, deps.options().top);
					this.patch({ results, error: null, tookMs: doc.took_ms });
					if (latest) this.release(results);
				},
				onError: (_request, error, latest) => {
					if (!latest) return;
					this.patch({ error: error instanceof ApiError ? error : toApiError(error), results: [] });
					this.release([]);
				},
				onBusy: (busy) => this.patch({ loading: busy }),
			},
			deps.clock,
		);
	}

	/** Results for `input`, debounced; resolves with the newest query's results. */
	query(input: string): Promise<SearchHit[]> {
		const parsed = parseSearchInput(input);
		this.patch({ input, parsed });
		if (parsed.query.length < 2) {
			this.runner.cancel();
			this.patch({ results: [], error: null, loading: false });
			this.release([]);
			return Promise.resolve([]);
		}
		const { top, debounceMs, rerank, excluding } = this.deps.options();
		this.runner.submit(buildSearchRequest(parsed, top, rerank, excluding ? 10 : 0), debounceMs);
		return new Promise((resolve) => this.waiters.push(resolve));
	}

	dispose(): void {
		this.runner.dispose();
		this.release([]);
	}

	private release(hits: SearchHit[]): void {
		const waiters = this.waiters;
		this.waiters = [];
		for (const resolve of waiters) resolve(hits);
	}

	private patch(patch: Partial<SearchState>): void {
		this.store.set({ ...this.store.get(), ...patch });
	}
}
