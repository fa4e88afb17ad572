/**
 * Every field of every wire type, at run time, for the contract check against the server's
 * `/v1/openapi.json` (e2e/openapi-check.mjs). Each table is a `Record<keyof T, ...>` so the
 * compiler rejects a missing or an extra field: these lists cannot drift from `types.ts`.
 */
import type {
	BestChunk,
	Components,
	DiscoveryDoc,
	ExplainDoc,
	ExplainHop,
	ExplainSeed,
	HealthDoc,
	MissingDoc,
	MissingRequest,
	NoteStatusDoc,
	PointerCredit,
	PointerLines,
	Progress,
	RelatedBatchDoc,
	RelatedBatchNote,
	RelatedBatchRequest,
	RelatedDoc,
	RelatedHit,
	RelatedRequest,
	RetrieverPlace,
	Rival,
	ScoreBreakdown,
	SearchDoc,
	SearchHit,
	SearchRequest,
	StatusDoc,
	VectorSpace,
} from "./types";

/**
 * "pending": a field from a shared contract that the server on this branch may not send yet;
 * the plugin treats it as optional, and the contract check reports it without failing.
 */
export type Presence = "required" | "optional" | "pending";
type Fields<T> = Record<keyof T, Presence>;

const R: Presence = "required";
const O: Presence = "optional";
const P: Presence = "pending";

export const WIRE_FIELDS = {
	HealthDoc: { schema: R, status: R, version: R, state: R, vault_id: O } satisfies Fields<HealthDoc>,
	Progress: { stage: R, done: R, total: R, rate: R, eta_s: R } satisfies Fields<Progress>,
	StatusDoc: {
		schema: R, vault: R, index_dir: R, state: R, notes: R, chunks: R, links: R, tags: R,
		skipped: R, vectors: R, edges: R, model: R, progress: R, last_error: R, paused: R,
		version: O, pending: O, queue: O, excluded: O, exclude: O, state_detail: P, phases: O, freshness: O,
		kinds: O, pages: O, labels: O, languages: O, spaces: O,
	} satisfies Fields<StatusDoc>,
	NoteStatusDoc: {
		schema: R, path: R, exists: R, indexed: R, reason: R, chunks: R, indexed_hash: R,
		disk_hash: R, fresh: R,
	} satisfies Fields<NoteStatusDoc>,
	SearchRequest: {
		query: R, top: O, files_only: O, explain: O, lexical: O, graph: O, rerank: O, expand: O,
		folder: O, tag: O, property: O,
	} satisfies Fields<SearchRequest>,
	SearchHit: {
		rank: R, chunk_id: R, path: R, title: R, heading_path: R, line_start: R, line_end: R,
		byte_start: R, byte_end: R, text: R, text_truncated: R, score: R, found_by: R,
		duplicates: R, components: R, explain: R, relevance: P, relevance_label: P, page: O, page_end: O, card_id: O,
		open_page: O, space: O,
	} satisfies Fields<SearchHit>,
	SearchDoc: { schema: R, query: R, took_ms: R, files_only: R, ranked_by: R, per_note: R, results: R, partial_space: O } satisfies Fields<SearchDoc>,
	RelatedRequest: {
		path: R, text: O, cursor: O, top: O, unlinked_only: O, explain: O, lexical: O, graph: O, rerank: O,
		votes: O,
	} satisfies Fields<RelatedRequest>,
	BestChunk: {
		chunk_id: R, heading_path: R, line_start: R, line_end: R, byte_start: R, byte_end: R, text: R,
		page: O, page_end: O, open_page: O, card_id: O,
	} satisfies Fields<BestChunk>,
	RelatedHit: {
		rank: R, path: R, title: R, folder: R, score: R, link_status: R, best_chunk: R,
		duplicates: R, components: R, explain: R, relevance: P, relevance_label: P, votes: P,
		link_heat: O, space: O, coverage: O,
	} satisfies Fields<RelatedHit>,
	RelatedDoc: { schema: R, path: R, took_ms: R, results: R, partial_space: O } satisfies Fields<RelatedDoc>,
	RelatedBatchRequest: { paths: R, top: O } satisfies Fields<RelatedBatchRequest>,
	RelatedBatchNote: { path: R, results: R } satisfies Fields<RelatedBatchNote>,
	RelatedBatchDoc: { schema: R, took_ms: R, notes: R, missing: R } satisfies Fields<RelatedBatchDoc>,
	Components: { vector: R, lexical: R, heat: R, fusion: R, rerank: R, title: R, note: R, page: R, pointer: R } satisfies Fields<Components>,
	ExplainSeed: {
		chunk_id: R, path: R, heading_path: R, text: R, stage: R, seed_score: R,
		page: O, page_end: O, card_id: O,
	} satisfies Fields<ExplainSeed>,
	ExplainHop: {
		hop: R, from_chunk: R, to_chunk: R, edge: R, edge_weight: R, type_weight: R, decay: R,
		heat: R, hub_factor: R, path: R, heading_path: R, text: R,
	} satisfies Fields<ExplainHop>,
	ScoreBreakdown: { raw: R, normalized: R, weights: R, final: R } satisfies Fields<ScoreBreakdown>,
	ExplainDoc: {
		schema: R, query: R, chunk_id: R, path: R, score: R, seed: R, hops: R, components: R,
		pointer: O, space: O, content_score: O, coverage: O, votes: P, link_heat: O,
	} satisfies Fields<ExplainDoc>,
	PointerLines: { path: R, line_start: R, line_end: R } satisfies Fields<PointerLines>,
	PointerCredit: { text: R, gave: R, to: R, entry: R, received: R, from: R } satisfies Fields<PointerCredit>,
	VectorSpace: {
		space: R, query_language: R, chunk_language: R, reason: R, partial: R,
	} satisfies Fields<VectorSpace>,
	MissingRequest: {
		query: R, path: R, top: O, files_only: O, explain: O, lexical: O, graph: O, rerank: O, expand: O,
		folder: O, tag: O, property: O,
	} satisfies Fields<MissingRequest>,
	RetrieverPlace: { stage: R, rank: R, score: R, keeps: R, cutoff: R } satisfies Fields<RetrieverPlace>,
	Rival: { rank: R, path: R, chunk_id: R, score: R } satisfies Fields<Rival>,
	MissingDoc: {
		schema: R, query: R, path: R, files_only: R, ranked_by: R, status: R, reason: R, top: R,
		candidates: R, rank: R, would_rank: R, score: R, relevance: R, relevance_label: R,
		best_chunk: R, components: R, explain: R, retrievers: R, to_beat: R,
	} satisfies Fields<MissingDoc>,
} as const;

/** The discovery file is not an API document, so it is not in the OpenAPI comparison. */
export const DISCOVERY_FIELDS = {
	url: R, host: R, port: R, pid: R, token: R, vault: R, started_at: R,
} satisfies Fields<DiscoveryDoc>;

/** The `schema` tag each document carries, by type name. */
export const SCHEMA_TAGS = {
	HealthDoc: "vaultheat.health.v1",
	StatusDoc: "vaultheat.status.v1",
	NoteStatusDoc: "vaultheat.note_status.v1",
	SearchDoc: "vaultheat.search.v1",
	RelatedDoc: "vaultheat.related.v1",
	RelatedBatchDoc: "vaultheat.related_batch.v1",
	ExplainDoc: "vaultheat.explain.v1",
	MissingDoc: "vaultheat.missing.v1",
	AckDoc: "vaultheat.ack.v1",
} as const;
