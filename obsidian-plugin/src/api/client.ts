/**
 * Typed calls to the vaultheat API. The only module that builds URLs and headers.
 *
 * The endpoint is read through a function on every call: the connection manager re-reads the
 * discovery file when the sidecar restarts (new port, new token) and the client follows without
 * being rebuilt. Each answer's `schema` tag is checked, so a server speaking another version
 * fails loudly as `protocol` instead of rendering half-empty rows.
 */
import { ApiError } from "./errors";
import type { HttpResponse, Transport } from "./transport";
import type {
	AckDoc,
	ChangeEvent,
	ErrorBody,
	ExplainDoc,
	ExplainRequest,
	HealthDoc,
	MissingDoc,
	MissingRequest,
	NoteStatusDoc,
	RelatedBatchDoc,
	RelatedBatchRequest,
	RelatedDoc,
	RelatedRequest,
	SearchDoc,
	SearchRequest,
	StatusDoc,
} from "./types";
import { SCHEMA_TAGS } from "./wire-fields";

export interface Endpoint {
	url: string;
	token: string;
}

export interface ClientOptions {
	/** Per-request limit for queries; health checks use a shorter one. */
	timeoutMs?: number;
}

const HEALTH_TIMEOUT_MS = 3000;
/** A batch runs one related query per note: give a busy machine room. */
const BATCH_TIMEOUT_MS = 120000;

export class VaultheatClient {
	private readonly transport: Transport;
	private readonly endpoint: () => Endpoint;
	private readonly timeoutMs: number;

	constructor(transport: Transport, endpoint: () => Endpoint, options: ClientOptions = {}) {
		this.transport = transport;
		this.endpoint = endpoint;
		this.timeoutMs = options.timeoutMs ?? 20000;
	}

	health(): Promise<HealthDoc> {
		return this.call<HealthDoc>("GET", "/v1/health", undefined, SCHEMA_TAGS.HealthDoc, HEALTH_TIMEOUT_MS);
	}

	status(): Promise<StatusDoc> {
		return this.call<StatusDoc>("GET", "/v1/status", undefined, SCHEMA_TAGS.StatusDoc);
	}

	noteStatus(path: string): Promise<NoteStatusDoc> {
		const q = `?path=${encodeURIComponent(path)}`;
		return this.call<NoteStatusDoc>("GET", `/v1/notes/status${q}`, undefined, SCHEMA_TAGS.NoteStatusDoc);
	}

	search(request: SearchRequest): Promise<SearchDoc> {
		return this.call<SearchDoc>("POST", "/v1/search", request, SCHEMA_TAGS.SearchDoc);
	}

	related(request: RelatedRequest): Promise<RelatedDoc> {
		return this.call<RelatedDoc>("POST", "/v1/related", request, SCHEMA_TAGS.RelatedDoc);
	}

	/** Related notes of many saved notes at once (the snapshot's fetches); 404 on an older server. */
	relatedBatch(request: RelatedBatchRequest): Promise<RelatedBatchDoc> {
		return this.call<RelatedBatchDoc>("POST", "/v1/related/batch", request, SCHEMA_TAGS.RelatedBatchDoc, BATCH_TIMEOUT_MS);
	}

	explain(request: ExplainRequest): Promise<ExplainDoc> {
		return this.call<ExplainDoc>("POST", "/v1/explain", request, SCHEMA_TAGS.ExplainDoc);
	}

	/** Where a note the user expected landed in a search, and what kept it down. */
	explainMissing(request: MissingRequest): Promise<MissingDoc> {
		return this.call<MissingDoc>("POST", "/v1/explain/missing", request, SCHEMA_TAGS.MissingDoc);
	}

	notesChanged(events: ChangeEvent[]): Promise<AckDoc> {
		return this.call<AckDoc>("POST", "/v1/notes/changed", { events }, SCHEMA_TAGS.AckDoc);
	}

	index(full = false): Promise<AckDoc> {
		return this.call<AckDoc>("POST", "/v1/index", full ? { full: true } : {}, SCHEMA_TAGS.AckDoc);
	}

	pause(): Promise<AckDoc> {
		return this.call<AckDoc>("POST", "/v1/index/pause", {}, SCHEMA_TAGS.AckDoc);
	}

	resume(): Promise<AckDoc> {
		return this.call<AckDoc>("POST", "/v1/index/resume", {}, SCHEMA_TAGS.AckDoc);
	}

	/** Asks the server to stop cleanly (one we did not start: an adopted sidecar). */
	shutdown(): Promise<AckDoc> {
		return this.call<AckDoc>("POST", "/v1/shutdown", {}, SCHEMA_TAGS.AckDoc);
	}

	/** URL and headers for GET /v1/events (the stream is opened by an EventStreamOpener). */
	eventsRequest(): { url: string; headers: Record<string, string> } {
		const { url, token } = this.endpoint();
		return { url: joinUrl(url, "/v1/events"), headers: { ...authHeaders(token), Accept: "text/event-stream" } };
	}

	private async call<T>(
		method: "GET" | "POST",
		path: string,
		body: unknown,
		schema: string,
		timeoutMs = this.timeoutMs,
	): Promise<T> {
		const { url, token } = this.endpoint();
		const response = await this.transport.request({
			url: joinUrl(url, path),
			method,
			headers: { ...authHeaders(token), Accept: "application/json" },
			body: body === undefined ? undefined : JSON.stringify(body),
			timeoutMs,
		});
		return parseAnswer<T>(response, schema);
	}
}

function authHeaders(token: string): Record<string, string> {
	return token ? { Authorization: `Bearer ${token}` } : {};
}

export function joinUrl(base: string, path: string): string {
	return base.replace(/\/+$/, "") + path;
}

/** The document in a response, or the server's error as an ApiError. */
export function parseAnswer<T>(response: HttpResponse, schema: string): T {
	let doc: unknown;
	try {
		doc = response.text === "" ? null : JSON.parse(response.text);
	} catch {
		doc = undefined;
	}
	if (response.status < 200 || response.status >= 300) {
		const err = errorOf(doc);
		if (err) throw new ApiError("http", err.message, response.status, err.code);
		throw new ApiError("http", `HTTP ${response.status}`, response.status, codeForStatus(response.status));
	}
	if (doc === undefined || doc === null || typeof doc !== "object") {
		throw new ApiError("protocol", "The server's answer was not JSON.", response.status);
	}
	const tag = (doc as { schema?: unknown }).schema;
	if (tag !== schema) {
		throw new ApiError(
			"protocol",
			`Expected a ${schema} document, got ${typeof tag === "string" ? tag : "none"}.`,
			response.status,
		);
	}
	return doc as T;
}

function errorOf(doc: unknown): ErrorBody["error"] | null {
	if (!doc || typeof doc !== "object") return null;
	const error = (doc as Partial<ErrorBody>).error;
	if (!error || typeof error.code !== "string" || typeof error.message !== "string") return null;
	return error;
}

function codeForStatus(status: number): string {
	switch (status) {
		case 401:
			return "unauthorized";
		case 403:
			return "forbidden";
		case 404:
			return "not_found";
		case 413:
			return "too_large";
		default:
			return status >= 500 ? "server" : "bad_request";
	}
}
