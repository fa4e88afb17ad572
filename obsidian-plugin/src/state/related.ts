/**
 * Related notes for the note being edited.
 *
 * Switching notes queries at once and clears the list (old rows would belong to another note);
 * typing queries after `debounceMs` of quiet and keeps the current rows visible with `updating`
 * set, so the sidebar never jumps while the user writes. Answers go through LatestRunner, and
 * an answer for a note that is no longer the target is dropped.
 */
import { passesThreshold, type RelevanceThreshold } from "./relevance";
import { ApiError, toApiError } from "../api/errors";
import type { RelatedDoc, RelatedHit, RelatedRequest } from "../api/types";
import type { Clock } from "./clock";
import type { PathFilter } from "./exclude";
import { LatestRunner } from "./latest";
import { Store } from "./store";
import { utf8Length, utf8Offset } from "./text";

/** The editor's view of the note: unsaved text and the cursor as a UTF-16 offset. */
export interface NoteContext {
	path: string;
	title: string;
	text: string | null;
	cursor: number | null;
}

export interface RelatedState {
	target: { path: string; title: string } | null;
	results: RelatedHit[];
	/** The request whose answer `results` is (explain reuses it). */
	resultsFor: RelatedRequest | null;
	/** A query for the target is waiting or running. */
	updating: boolean;
	error: ApiError | null;
	unlinkedOnly: boolean;
	tookMs: number | null;
	/** Results left out by "hide weak matches" in the last answer. */
	hiddenWeak: number;
}

export interface RelatedDeps {
	related(request: RelatedRequest): Promise<RelatedDoc>;
	options(): { top: number; debounceMs: number; excluding: boolean; rerank?: boolean; threshold?: RelevanceThreshold };
	isExcluded: () => PathFilter;
	/** Suggestions the user hid for a note ("Hide this suggestion for this note"). */
	isHidden?: (source: string, target: string) => boolean;
	clock: Clock;
}

/** Larger unsaved texts are not sent: the server's saved copy is used instead. */
export const MAX_TEXT_BYTES = 1_000_000;

export function initialRelatedState(unlinkedOnly: boolean): RelatedState {
	return {
		target: null,
		results: [],
		resultsFor: null,
		updating: false,
		error: null,
		unlinkedOnly,
		tookMs: null,
		hiddenWeak: 0,
	};
}

export function buildRelatedRequest(
	ctx: NoteContext,
	top: number,
	unlinkedOnly: boolean,
	extra: number,
	rerank?: boolean,
): RelatedRequest {
	const request: RelatedRequest = { path: ctx.path, top: Math.min(100, top + extra) };
	if (rerank !== undefined) request.rerank = rerank;
	if (ctx.text !== null && utf8Length(ctx.text) <= MAX_TEXT_BYTES) {
		request.text = ctx.text;
		if (ctx.cursor !== null) request.cursor = utf8Offset(ctx.text, ctx.cursor);
	}
	if (unlinkedOnly) request.unlinked_only = true;
	return request;
}

export class RelatedController {
	readonly store: Store<RelatedState>;
	private readonly deps: RelatedDeps;
	private readonly runner: LatestRunner<RelatedRequest, RelatedDoc>;
	private context: NoteContext | null = null;

	constructor(deps: RelatedDeps, unlinkedOnly: boolean) {
		this.deps = deps;
		this.store = new Store(initialRelatedState(unlinkedOnly));
		this.runner = new LatestRunner<RelatedRequest, RelatedDoc>(
			(request) => deps.related(request),
			{
				onResult: (request, doc, latest) => this.onResult(request, doc, latest),
				onError: (request, error, latest) => this.onError(request, error, latest),
				onBusy: (busy) => this.patch({ updating: busy }),
			},
			deps.clock,
		);
	}

	get current(): NoteContext | null {
		return this.context;
	}

	/** The active note changed (or was reopened): query now. Null clears the sidebar. */
	follow(ctx: NoteContext | null): void {
		const previous = this.context;
		this.context = ctx;
		if (!ctx) {
			this.runner.cancel();
			this.store.set({ ...initialRelatedState(this.state.unlinkedOnly) });
			return;
		}
		const samePath = previous?.path === ctx.path;
		if (samePath && previous.text === ctx.text && this.state.results.length > 0 && !this.state.error) return;
		if (!samePath) {
			this.store.set({
				...initialRelatedState(this.state.unlinkedOnly),
				target: { path: ctx.path, title: ctx.title },
			});
		}
		this.submit(0);
	}

	/** The user typed or moved in the target note: query after a pause. */
	edited(ctx: NoteContext): void {
		if (this.context?.path !== ctx.path) {
			this.follow(ctx);
			return;
		}
		this.context = ctx;
		this.submit(this.deps.options().debounceMs);
	}

	/** Query again now (index changed, reconnected, retry button). */
	refresh(): void {
		if (this.context) this.submit(0);
	}

	setUnlinkedOnly(value: boolean): void {
		if (value === this.state.unlinkedOnly) return;
		this.patch({ unlinkedOnly: value });
		this.refresh();
	}

	/** The request explain should repeat for `target`. */
	explainRequest(target: string): { path: string; text?: string; cursor?: number; target: string } | null {
		const request = this.state.resultsFor;
		if (!request) return null;
		const out: { path: string; text?: string; cursor?: number; target: string } = { path: request.path, target };
		if (request.text !== undefined) out.text = request.text;
		if (request.cursor !== undefined) out.cursor = request.cursor;
		return out;
	}

	dispose(): void {
		this.runner.dispose();
	}

	private get state(): RelatedState {
		return this.store.get();
	}

	private submit(delayMs: number): void {
		const ctx = this.context;
		if (!ctx) return;
		const { top, excluding, rerank } = this.deps.options();
		const request = buildRelatedRequest(ctx, top, this.state.unlinkedOnly, excluding ? 10 : 0, rerank);
		this.runner.submit(request, delayMs);
	}

	private onResult(request: RelatedRequest, doc: RelatedDoc, latest: boolean): void {
		if (request.path !== this.context?.path) return;
		if (Boolean(request.unlinked_only) !== this.state.unlinkedOnly && !latest) return;
		const excluded = this.deps.isExcluded();
		const { top, threshold = "all" } = this.deps.options();
		const hidden = this.deps.isHidden ?? (() => false);
		const kept = doc.results.filter((hit) => !excluded(hit.path) && hit.path !== request.path && !hidden(request.path, hit.path)).slice(0, top);
		const results = kept.filter((hit) => passesThreshold(hit, threshold));
		this.patch({ results, resultsFor: request, error: null, tookMs: doc.took_ms, hiddenWeak: kept.length - results.length });
	}

	private onError(request: RelatedRequest, error: unknown, latest: boolean): void {
		if (request.path !== this.context?.path || !latest) return;
		const apiError = error instanceof ApiError ? error : toApiError(error);
		this.patch({ error: apiError, resultsFor: request });
	}

	private patch(patch: Partial<RelatedState>): void {
		this.store.set({ ...this.state, ...patch });
	}
}
