/**
 * Wire types of the vaultheat HTTP API (docs/api.md), field for field.
 *
 * Names keep the server's snake_case on purpose: these are the JSON documents as they travel,
 * and a rename here would hide drift from `server/schemas.py`. `wire-fields.ts` lists every
 * field at run time (checked complete by the compiler) so a test can compare these shapes with
 * the live `/v1/openapi.json`. Everything the views need beyond this is derived in `state/`.
 */

export type LinkStatus = "linked" | "backlinked" | "both" | "unlinked";
/** "incomplete" comes with the truth contract (status state + state_detail). */
export type IndexState = "empty" | "ready" | "indexing" | "stale" | "incomplete";
/** Contract "relevance": an absolute, calibrated relevance in [0, 1] and its label. */
export type RelevanceLabel = "strong" | "good" | "weak";
export type ChangeType = "create" | "modify" | "delete" | "rename";

export const ERROR_CODES = [
	"config",
	"vault",
	"index_missing",
	"index_exists",
	"index_mismatch",
	"index_corrupt",
	"index_changed",
	"index_locked",
	"index_process",
	"provider",
	"model_missing",
	"not_found",
	"bad_request",
	"unauthorized",
	"forbidden",
	"too_large",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** `{"error": {...}}` body of every failed request. */
export interface ErrorBody {
	error: { code: string; message: string; context?: Record<string, unknown> };
}

/** Per-component scores; a component the query did not use is null. */
export interface Components {
	vector: number | null;
	lexical: number | null;
	/** Heat along graph edges: only when the server propagates it (experimental.search_hops > 0). */
	heat: number | null;
	/** Without heat: how high the meaning and keyword searches ranked it (rank fusion). */
	fusion: number | null;
	rerank: number | null;
	/** The query named the note (its title, an alias or its file name): 1 exact, less partial. */
	title: number | null;
	/** The note as a whole (its opening and the mean of its passages) against the query. */
	note: number | null;
	/** 1 for a note proper, 0 for a digest or a list page (search only; null in related notes). */
	page: number | null;
	/** Score moved by a digest's or list page's bullet that links the note: received less given (weight 1, not scaled; null when experimental.search_pointer_credit is 0). */
	pointer: number | null;
}
export type ComponentName = keyof Components;

export interface HealthDoc {
	schema: "vaultheat.health.v1";
	status: "ok";
	version: string;
	state: IndexState;
	/** First 16 hex digits of sha256 of the vault's resolved path (contract "health"). */
	vault_id?: string;
}

export interface Progress {
	stage: string;
	done: number;
	total: number;
	rate: number | null;
	eta_s: number | null;
}

export interface SkippedFile {
	path: string;
	reason: string;
}

export interface StatusDoc {
	schema: "vaultheat.status.v1";
	vault: string;
	index_dir: string;
	state: IndexState;
	notes: number;
	chunks: number;
	links: { resolved: number; unresolved: number };
	tags: number;
	skipped: SkippedFile[];
	vectors: number;
	edges: { similar: number; link: number; tag: number };
	model: { provider: string; name: string; dimension: number };
	progress: Progress | null;
	last_error: string | null;
	paused: boolean;
	/** Beyond docs/api.md, sent by the server (in its OpenAPI document). */
	version?: string;
	pending?: { knn: number; links: number };
	queue?: number;
	excluded?: number;
	/** The `vault.exclude` globs in effect on the server (config and `serve --exclude`). */
	exclude?: string[];
	/** Why the state is what it is, in plain words (contract "status state"). */
	state_detail?: string;
	/** The two phases of an index run: words (notes, lexical index, links) then meaning (vectors). */
	phases?: IndexPhases;
	/** The notes on disk against the index, from the scan status starts with. */
	freshness?: { on_disk: number; indexed: number; not_indexed: number; changed: number; deleted: number };
	/** Markdown notes, PDFs and canvases: indexed, and how many of `skipped` are of that kind. */
	kinds?: Record<"markdown" | "pdf" | "canvas", { indexed: number; skipped: number }>;
	/** Notes by what they are (note, digest, list; "unclassified" until an older index's next run). */
	pages?: Record<string, number>;
	/** Where related notes' labels come from: fitted on this vault's links ("vault") or the model's curve ("model": too few links); absent before the first fit. */
	labels?: { source: "vault" | "model"; sampled: number; points: number; linked: number };
	/** Chunks per language (ISO 639-1; "und": too short or unnamed script), most first, then "pending": not detected yet. */
	languages?: Record<string, number>;
	/** The second vector space (multilingual vectors of every chunk): empty until multilingual indexing fills it; only (absent when 0): chunks in other languages, with no English vector, read there only. */
	spaces?: { multilingual: { state: "empty" | "filling" | "done"; vectors: number; only?: number } };
}

/** "done", "running", "interrupted" (a run stopped in it) or "pending". */
export type PhaseState = "done" | "running" | "interrupted" | "pending";

export interface IndexPhases {
	words: { state: PhaseState };
	/** `done` of `total` chunks have their vector; `eta_s` only while the phase runs. */
	meaning: { state: PhaseState; done: number; total: number; percent: number; eta_s: number | null };
}

export interface NoteStatusDoc {
	schema: "vaultheat.note_status.v1";
	path: string;
	exists: boolean;
	indexed: boolean;
	reason: string | null;
	chunks: number;
	indexed_hash: string | null;
	disk_hash: string | null;
	fresh: boolean;
}

export interface SearchRequest {
	query: string;
	top?: number;
	files_only?: boolean;
	explain?: boolean;
	lexical?: boolean;
	graph?: boolean;
	rerank?: boolean;
	expand?: boolean;
	folder?: string;
	tag?: string;
	property?: Record<string, string>;
}

export interface SearchHit {
	rank: number;
	chunk_id: number;
	path: string;
	title: string;
	heading_path: string[];
	line_start: number;
	line_end: number;
	byte_start: number;
	byte_end: number;
	/** A PDF's chunk: its first and last page (1-based); absent on notes and older servers. */
	page?: number;
	page_end?: number;
	/** A PDF's chunk: the page to open, the one of page..page_end holding the match; absent on older servers. */
	open_page?: number;
	/** A canvas's chunk: the card (JSON Canvas node id) it comes from. */
	card_id?: string;
	text: string;
	text_truncated: boolean;
	score: number;
	/** Contract "relevance" (absolute, comparable across queries); absent on older servers. */
	relevance?: number;
	relevance_label?: RelevanceLabel;
	found_by: string;
	/** Notes ranked below whose best passage is mostly this note's text (a digest quoting it), folded in. */
	duplicates: string[];
	components: Components;
	explain: ExplainDoc | null;
	/** With a second vector space: the one that scored the passage (absent with one space). */
	space?: VectorSpaceName;
}

/** The vector space that scored a result: "multilingual" when the query's language or the passage's is not English. */
export type VectorSpaceName = "english" | "multilingual";

export interface SearchDoc {
	schema: "vaultheat.search.v1";
	query: string;
	took_ms: number;
	files_only: boolean;
	/** "words": no match by meaning, the results with the query's words come first */
	ranked_by: "meaning" | "words";
	/** Chunk results: at most this many chunks of one note came before every other note's (0: plain score order). */
	per_note: number;
	results: SearchHit[];
	/** Present (true) when the query was read in the multilingual space while it is still being filled. */
	partial_space?: boolean;
}

export interface BestChunk {
	chunk_id: number;
	heading_path: string[];
	line_start: number;
	line_end: number;
	byte_start: number;
	byte_end: number;
	/** As on SearchHit: a PDF's pages (and the page to open) or a canvas's card, for derived text only. */
	page?: number;
	page_end?: number;
	open_page?: number;
	card_id?: string;
	text: string;
}

export interface RelatedRequest {
	path: string;
	text?: string;
	cursor?: number;
	top?: number;
	unlinked_only?: boolean;
	explain?: boolean;
	/** Beyond docs/api.md, accepted by the server (in its OpenAPI document). */
	lexical?: boolean;
	/** Heat propagation (only when experimental.search_hops > 0). */
	graph?: boolean;
	rerank?: boolean | null;
	/** Link votes (default true). */
	votes?: boolean;
}

export interface RelatedHit {
	rank: number;
	path: string;
	title: string;
	folder: string;
	score: number;
	relevance?: number;
	relevance_label?: RelevanceLabel;
	link_status: LinkStatus;
	best_chunk: BestChunk;
	duplicates: string[];
	components: Components;
	explain: ExplainDoc | null;
	/** Contract "votes": null when no close neighbour links to this note. */
	votes?: Votes | null;
	/** Close through the source note's own links: null or absent when no heat reached it (older sidecars). */
	link_heat?: LinkHeat | null;
	/** With a second vector space: the one that scored the best passage (absent with one space). */
	space?: VectorSpaceName;
	/** `experimental.related_score_coverage`: the part of the score for how much of the open note this one speaks to (absent where not computed). */
	coverage?: number;
}

export interface Voter {
	path: string;
	title: string;
	score: number;
}

/** Of the source note's k closest notes, `count` link to this result (contract "votes"). */
export interface Votes {
	count: number;
	k: number;
	weight: number;
	share: number;
	bonus: number;
	/** Σ of the k closest notes' scores: share = Σ voters' scores / total. */
	total?: number;
	/** 1 unless hub damping (`related.vote_hub_degree`, `related.vote_linked_hub_degree`) or votes beyond chance (`related.vote_chance`) apply: bonus = weight × share × hub_factor. */
	hub_factor?: number;
	voters: Voter[];
}

/** One of the source note's own link neighbours next to a result. */
export interface LinkHeatVia {
	path: string;
	title: string;
}

/**
 * Link heat: spread from the source note's own links (both ways) over the link graph, by
 * personalized PageRank ("ppr") or resource allocation ("ra"); bonus = weight × heat / top.
 */
export interface LinkHeat {
	/** `related.link_heat`: personalized PageRank or resource allocation. */
	kind: "ppr" | "ra";
	/** This note's heat. */
	heat: number;
	/** The largest heat of any candidate. */
	top: number;
	/** `related.link_heat_weight`. */
	weight: number;
	/** weight × heat / top, added to the score. */
	bonus: number;
	/** The source note's link neighbours next to this one, most telling first. */
	via: LinkHeatVia[];
}

export interface RelatedDoc {
	schema: "vaultheat.related.v1";
	path: string;
	took_ms: number;
	results: RelatedHit[];
	/** Present (true) when the note may be read in the multilingual space while it is still being filled. */
	partial_space?: boolean;
}

/** POST /v1/related/batch: the saved notes' related notes, many at once (the snapshot). */
export interface RelatedBatchRequest {
	paths: string[];
	top?: number;
}

export interface RelatedBatchNote {
	path: string;
	results: RelatedHit[];
}

export interface RelatedBatchDoc {
	schema: "vaultheat.related_batch.v1";
	took_ms: number;
	notes: RelatedBatchNote[];
	/** Asked-for paths the index does not hold (not indexed, excluded, not a note). */
	missing: string[];
}

export type ExplainRequest =
	| { query: string; chunk_id: number }
	| { path: string; text?: string; cursor?: number; target: string };

export interface ExplainSeed {
	chunk_id: number;
	path: string;
	heading_path: string[];
	page?: number;
	page_end?: number;
	card_id?: string;
	text: string;
	stage: string;
	seed_score: number;
}

export interface ExplainHop {
	hop: number;
	from_chunk: number;
	to_chunk: number;
	edge: string;
	edge_weight: number;
	type_weight: number;
	decay: number;
	heat: number;
	hub_factor: number;
	path: string;
	heading_path: string[];
	text: string;
}

export interface ScoreBreakdown {
	raw: Components;
	normalized: Components;
	weights: Record<ComponentName, number>;
	final: number;
}

/** A pointer entry: its note and its lines (1-based, inclusive). */
export interface PointerLines {
	path: string;
	line_start: number;
	line_end: number;
}

/** experimental.search_pointer_credit: what a chunk gave or received (components.normalized.pointer == received - gave). */
export interface PointerCredit {
	/** The credit in words. */
	text: string;
	gave: number;
	to: string[];
	entry: PointerLines | null;
	received: number;
	from: PointerLines | null;
}

/** Search with a second vector space (embeddings.second_space): which space scored the passage and why. */
export interface VectorSpace {
	/** The space whose cosine is the vector part (on the English scale). */
	space: "english" | "multilingual";
	/** The query's language (ISO 639-1; "und": not known). */
	query_language: string;
	/** The passage's language as the index has it. */
	chunk_language: string;
	/** The routing rule that applied, in words. */
	reason: string;
	/** The multilingual space is still being filled. */
	partial: boolean;
}

export interface ExplainDoc {
	schema: "vaultheat.explain.v1";
	query: string;
	chunk_id: number;
	path: string;
	/** The result's score as listed (for a note: all its passages), `components.final` is the passage's. */
	score: number;
	seed: ExplainSeed | null;
	hops: ExplainHop[];
	components: ScoreBreakdown;
	/** Search: the pointer credit the passage gave or received; absent when it had none. */
	pointer?: PointerCredit;
	/** Search with a second vector space: which one scored the passage, and why; absent with one space. */
	space?: VectorSpace;
	/** A related result's score before its link votes and link heat (score = content_score + votes.bonus + link_heat.bonus). */
	content_score?: number;
	/** A related result's coverage part of content_score; absent where not computed and for search. */
	coverage?: number;
	/** The related result's link votes (contract "votes"); absent for search. */
	votes?: Votes | null;
	/** The related result's link heat; absent for search and from older sidecars. */
	link_heat?: LinkHeat | null;
}

/** POST /v1/explain/missing: the search the user ran and the note they expected in it. */
export interface MissingRequest extends SearchRequest {
	path: string;
}

export type MissingStatus =
	| "not_indexed"
	| "no_chunks"
	| "no_vectors"
	| "filtered"
	| "shown"
	| "folded"
	| "ranked"
	| "cut_by_rerank"
	| "not_retrieved";

/** Where the note's highest-placed passage stands in one retriever's ranking of the vault. */
export interface RetrieverPlace {
	stage: "vector" | "lexical";
	/** null: the retriever does not match it at all (no word of the query). */
	rank: number | null;
	score: number | null;
	/** How many passages the retriever passes on. */
	keeps: number;
	/** The score of the last one it passes on. */
	cutoff: number | null;
}

export interface Rival {
	rank: number;
	path: string;
	chunk_id: number;
	score: number;
}

export interface MissingDoc {
	schema: "vaultheat.missing.v1";
	query: string;
	path: string;
	files_only: boolean;
	ranked_by: "meaning" | "words";
	status: MissingStatus;
	/** One sentence from the server: what kept it down. */
	reason: string;
	top: number;
	candidates: number;
	/** Its rank in this search; null when it was not among the candidates. */
	rank: number | null;
	/** Not a candidate: where its score would have put it. */
	would_rank: number | null;
	score: number | null;
	relevance: number | null;
	relevance_label: RelevanceLabel | null;
	best_chunk: BestChunk | null;
	components: ScoreBreakdown | null;
	explain: Omit<ExplainDoc, "schema" | "query" | "chunk_id" | "path" | "score"> | null;
	retrievers: RetrieverPlace[];
	to_beat: Rival | null;
}

export interface ChangeEvent {
	type: ChangeType;
	path: string;
	old_path?: string;
}

export interface AckDoc {
	schema: "vaultheat.ack.v1";
	queued?: number;
}

/** Server-Sent Events of GET /v1/events, by event name. */
export interface ServerEvents {
	state: StatusDoc;
	progress: Progress;
	note_indexed: { path: string };
	ready: { notes: number; chunks: number };
	error: { code: string; message: string };
}
export type ServerEventName = keyof ServerEvents;
export type ServerEvent = { [K in ServerEventName]: { name: K; data: ServerEvents[K] } }[ServerEventName];

/** `<index_dir>/server.json`, written by `vaultheat serve`. */
export interface DiscoveryDoc {
	url: string;
	host: string;
	port: number;
	pid: number;
	token: string;
	vault: string;
	started_at: string | number;
}
