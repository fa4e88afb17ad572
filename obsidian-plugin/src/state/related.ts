/**
 * Related notes for the note being edited.
 *
 * Switching notes queries at once and clears the list (old rows would belong to another note);
 * typing queries after `debounceMs` of quiet and keeps the current rows visible with `updating`
 * set, so the sidebar never jumps while the user writes. The note's text is read (and encoded)
 * only when the pause is over, never per keystroke. Answers go through LatestRunner, and an
 * answer for a note that is no longer the target is dropped. "Related notes for selection"
 * pins the query to a piece of text until the user goes back to the whole note.
 */
import { passesThreshold, type RelevanceThreshold } from "./relevance";
import { ApiError, toApiError } from "../api/errors";
import type { RelatedDoc, RelatedHit, RelatedRequest } from "../api/types";
import type { Clock } from "./clock";
import type { PathFilter } from "./exclude";
import { LatestRunner } from "./latest";
import { asRelatedHit, type SnapshotAnswer } from "./snapshot";
import { Store } from "./store";
import { utf8Length, utf8Offset } from "./text";

/** The editor's view of the note: unsaved text and the cursor as a UTF-16 offset. */
export interface NoteContext {
	path: string;
	title: string;
	text: string | null;
	cursor: number | null;
}

/** A note being edited: its text and cursor are read only when a query is about to go out. */
export interface NoteSource {
	path: string;
	title: string;
	read(): { text: string | null; cursor: number | null };
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
	/** The results are for a selected piece of the note, not the whole note. */
	selection: boolean;
	/** Set when `results` come from the snapshot (no server answered): its time and what changed. */
	snapshot: { at: number; noteChanged: boolean; changed: string[] } | null;
	/** The last answer read the multilingual space while it is still being filled (as search's). */
	partialSpace: boolean;
}

export interface RelatedDeps {
	related(request: RelatedRequest): Promise<RelatedDoc>;
	options(): { top: number; debounceMs: number; excluding: boolean; rerank?: boolean; threshold?: RelevanceThreshold };
	isExcluded: () => PathFilter;
	/** Suggestions the user hid for a note ("Hide this suggestion for this note"). */
	isHidden?: (source: string, target: string) => boolean;
	/** The snapshot's list for a note, used when no server answers (mobile, sidecar off). */
	fromSnapshot?: (path: string) => SnapshotAnswer | null;
	clock: Clock;
}

/** No server can answer: unreachable, too slow, or none is set (mobile without an address). */
export function isOffline(error: ApiError): boolean {
	return error.kind === "unreachable" || error.kind === "timeout" || error.code === NO_SERVER;
}

/** The error code the plugin raises itself when no server address is set where one is needed. */
export const NO_SERVER = "no_server";

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
		selection: false,
		snapshot: null,
		partialSpace: false,
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
	private source: NoteSource | null = null;
	/** The text the last `follow` saw (undefined once edits came in): unchanged means no query. */
	private seenText: string | null | undefined = undefined;

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

	/** The note the sidebar is about. */
	get current(): { path: string; title: string } | null {
		return this.source ? { path: this.source.path, title: this.source.title } : null;
	}

	/** The active note changed (or was reopened): query now. Null clears the sidebar. */
	follow(ctx: NoteContext | null): void {
		const previous = this.source;
		if (!ctx) {
			this.source = null;
			this.seenText = undefined;
			this.runner.cancel();
			this.store.set({ ...initialRelatedState(this.state.unlinkedOnly) });
			return;
		}
		const samePath = previous?.path === ctx.path;
		if (samePath && this.state.selection) return; // pinned to a selection until asked back
		if (samePath && this.seenText === ctx.text && this.state.results.length > 0 && !this.state.error) return;
		this.source = fixed(ctx);
		this.seenText = ctx.text;
		if (!samePath) {
			this.store.set({
				...initialRelatedState(this.state.unlinkedOnly),
				target: { path: ctx.path, title: ctx.title },
			});
		}
		this.submit(0);
	}

	/** The user typed or moved in the target note: query after a pause, reading it then. */
	edited(source: NoteSource): void {
		if (this.source?.path !== source.path) {
			this.follow({ path: source.path, title: source.title, ...source.read() });
			return;
		}
		if (this.state.selection) return;
		this.source = source;
		this.seenText = undefined;
		this.submit(this.deps.options().debounceMs);
	}

	/** Related notes for a selected piece of the note (`text`), until `wholeNote`. */
	followSelection(ctx: NoteContext): void {
		this.source = fixed(ctx);
		this.seenText = undefined;
		this.store.set({
			...initialRelatedState(this.state.unlinkedOnly),
			target: { path: ctx.path, title: ctx.title },
			selection: true,
		});
		this.submit(0);
	}

	/** Back from a selection to the whole note. */
	wholeNote(ctx: NoteContext): void {
		this.patch({ selection: false });
		this.source = fixed(ctx);
		this.seenText = ctx.text;
		this.submit(0);
	}

	/** Query again now (index changed, reconnected, retry button). */
	refresh(): void {
		if (this.source) this.submit(0);
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
		const source = this.source;
		if (!source) return;
		this.runner.submitLazy(() => {
			const { top, excluding, rerank } = this.deps.options();
			const ctx = { path: source.path, title: source.title, ...source.read() };
			return buildRelatedRequest(ctx, top, this.state.unlinkedOnly, excluding ? 10 : 0, rerank);
		}, delayMs);
	}

	private onResult(request: RelatedRequest, doc: RelatedDoc, latest: boolean): void {
		if (request.path !== this.source?.path) return;
		if (Boolean(request.unlinked_only) !== this.state.unlinkedOnly && !latest) return;
		const { kept, results } = this.shown(request.path, doc.results);
		const partialSpace = doc.partial_space === true;
		this.patch({ results, resultsFor: request, error: null, tookMs: doc.took_ms, hiddenWeak: kept.length - results.length, snapshot: null, partialSpace });
	}

	/** The hits the sidebar lists: not excluded, not hidden, not the note itself, above the threshold. */
	private shown(path: string, hits: readonly RelatedHit[]): { kept: RelatedHit[]; results: RelatedHit[] } {
		const excluded = this.deps.isExcluded();
		const { top, threshold = "all" } = this.deps.options();
		const hidden = this.deps.isHidden ?? (() => false);
		const kept = hits.filter((hit) => !excluded(hit.path) && hit.path !== path && !hidden(path, hit.path)).slice(0, top);
		return { kept, results: kept.filter((hit) => passesThreshold(hit, threshold)) };
	}

	private onError(request: RelatedRequest, error: unknown, latest: boolean): void {
		if (request.path !== this.source?.path || !latest) return;
		const apiError = error instanceof ApiError ? error : toApiError(error);
		const answer = isOffline(apiError) ? (this.deps.fromSnapshot?.(request.path) ?? null) : null;
		if (answer) {
			const { kept, results } = this.shown(request.path, answer.hits.map((h, i) => asRelatedHit(h, i + 1)));
			const snapshot = { at: answer.at, noteChanged: answer.noteChanged, changed: answer.changed };
			this.patch({ results, resultsFor: null, error: null, tookMs: null, hiddenWeak: kept.length - results.length, snapshot, partialSpace: false });
			return;
		}
		this.patch({ error: apiError, resultsFor: request, snapshot: null, partialSpace: false });
	}

	private patch(patch: Partial<RelatedState>): void {
		this.store.set({ ...this.state, ...patch });
	}
}

function fixed(ctx: NoteContext): NoteSource {
	return { path: ctx.path, title: ctx.title, read: () => ({ text: ctx.text, cursor: ctx.cursor }) };
}
