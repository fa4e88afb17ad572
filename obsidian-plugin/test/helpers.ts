/** Fakes for the seams: a manual clock, a routing transport, and wire documents. */
import { ApiError } from "../src/api/errors";
import type { HttpRequest, HttpResponse, Transport } from "../src/api/transport";
import type {
	ExplainDoc,
	RelatedDoc,
	RelatedHit,
	SearchDoc,
	SearchHit,
	StatusDoc,
} from "../src/api/types";
import type { Clock } from "../src/state/clock";

export class ManualClock implements Clock {
	time = 0;
	private timers = new Map<number, { at: number; fn: () => void }>();
	private nextId = 1;

	setTimeout(fn: () => void, ms: number): number {
		const id = this.nextId++;
		this.timers.set(id, { at: this.time + ms, fn });
		return id;
	}
	clearTimeout(id: number): void {
		this.timers.delete(id);
	}
	now(): number {
		return this.time;
	}
	get pending(): number {
		return this.timers.size;
	}
	/** Moves time forward, firing due timers in order (and letting promises settle). */
	async advance(ms: number): Promise<void> {
		const end = this.time + ms;
		for (;;) {
			await flush();
			const due = [...this.timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
			if (!due) break;
			this.timers.delete(due[0]);
			this.time = due[1].at;
			due[1].fn();
		}
		this.time = end;
		await flush();
	}
}

/** Lets every pending promise chain settle (a real macrotask turn). */
export async function flush(): Promise<void> {
	await new Promise((resolve) => setTimeout(resolve, 0));
}

/** A promise you settle from the test. */
export function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
	let resolve!: (v: T) => void;
	let reject!: (e: unknown) => void;
	const promise = new Promise<T>((res, rej) => {
		resolve = res;
		reject = rej;
	});
	return { promise, resolve, reject };
}

type Route = (req: HttpRequest, body: unknown) => HttpResponse | Promise<HttpResponse>;

export function json(status: number, doc: unknown): HttpResponse {
	return { status, text: JSON.stringify(doc) };
}

export function apiError(status: number, code: string, message = code): HttpResponse {
	return json(status, { error: { code, message } });
}

/** Routes "METHOD /path" to handlers and records every request. */
export class FakeTransport implements Transport {
	requests: { req: HttpRequest; body: unknown }[] = [];
	routes = new Map<string, Route>();
	unreachable = false;

	on(key: string, route: Route): this {
		this.routes.set(key, route);
		return this;
	}

	async request(req: HttpRequest): Promise<HttpResponse> {
		const body = req.body === undefined ? undefined : JSON.parse(req.body);
		this.requests.push({ req, body });
		if (this.unreachable) throw new ApiError("unreachable", "net::ERR_CONNECTION_REFUSED");
		const path = new URL(req.url).pathname;
		const route = this.routes.get(`${req.method} ${path}`);
		if (!route) return apiError(404, "not_found", `no route ${req.method} ${path}`);
		return route(req, body);
	}

	bodies(key: string): unknown[] {
		return this.requests.filter((r) => `${r.req.method} ${new URL(r.req.url).pathname}` === key).map((r) => r.body);
	}
}

const components = { vector: 0.8, lexical: 0.1, heat: 0.3, fusion: null, rerank: null, title: null, note: null, page: null, pointer: null };

export function relatedHit(path: string, overrides: Partial<RelatedHit> = {}): RelatedHit {
	const name = path.replace(/^.*\//, "").replace(/\.md$/, "");
	const folder = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
	return {
		rank: 1,
		path,
		title: name,
		folder,
		score: 0.77,
		link_status: "unlinked",
		best_chunk: { chunk_id: 7, heading_path: ["Intro"], line_start: 3, line_end: 5, byte_start: 0, byte_end: 40, text: `About ${name}.` },
		duplicates: [],
		components,
		explain: null,
		...overrides,
	};
}

export function relatedDoc(path: string, hits: RelatedHit[]): RelatedDoc {
	return { schema: "vaultheat.related.v1", path, took_ms: 8, results: hits };
}

export function searchHit(path: string, overrides: Partial<SearchHit> = {}): SearchHit {
	const name = path.replace(/^.*\//, "").replace(/\.md$/, "");
	return {
		rank: 1,
		chunk_id: 42,
		path,
		title: name,
		heading_path: ["Setup", "Install"],
		line_start: 3,
		line_end: 9,
		byte_start: 120,
		byte_end: 640,
		text: `Install ${name} with pip.`,
		text_truncated: false,
		score: 0.91,
		found_by: "vector",
		duplicates: [],
		components,
		explain: null,
		...overrides,
	};
}

export function searchDoc(query: string, hits: SearchHit[]): SearchDoc {
	return { schema: "vaultheat.search.v1", query, took_ms: 12, files_only: false, ranked_by: "meaning", per_note: 0, results: hits };
}

export function statusDoc(overrides: Partial<StatusDoc> = {}): StatusDoc {
	return {
		schema: "vaultheat.status.v1",
		vault: "/vault",
		index_dir: "/vault/.vaultheat",
		state: "ready",
		notes: 12,
		chunks: 80,
		links: { resolved: 30, unresolved: 2 },
		tags: 5,
		skipped: [],
		vectors: 80,
		edges: { similar: 100, link: 30, tag: 10 },
		model: { provider: "local", name: "all-MiniLM-L6-v2", dimension: 384 },
		progress: null,
		last_error: null,
		paused: false,
		...overrides,
	};
}

export function explainDoc(overrides: Partial<ExplainDoc> = {}): ExplainDoc {
	return {
		schema: "vaultheat.explain.v1",
		query: "install",
		chunk_id: 42,
		path: "Folder/Note.md",
		score: 0.77,
		seed: { chunk_id: 40, path: "A.md", heading_path: ["Start"], text: "Seed text about install.", stage: "vector", seed_score: 0.032 },
		hops: [
			{ hop: 1, from_chunk: 40, to_chunk: 42, edge: "link", edge_weight: 1, type_weight: 1, decay: 0.5, heat: 0.016, hub_factor: 1, path: "Folder/Note.md", heading_path: [], text: "Target text." },
		],
		components: {
			raw: { vector: 0.7, lexical: 0, heat: 0.016, fusion: null, rerank: null, title: null, note: null, page: null, pointer: null },
			normalized: { vector: 0.9, lexical: 0, heat: 0.5, fusion: null, rerank: null, title: null, note: null, page: null, pointer: null },
			weights: { vector: 0.8, lexical: 0.1, heat: 0.1, fusion: 0, rerank: 0, title: 0, note: 0, page: 0, pointer: 0 },
			final: 0.77,
		},
		...overrides,
	};
}

/** The snapshot's files in memory: what was read, written and removed, with stamps that change on each write. */
export class MemoryFiles {
	readonly files = new Map<string, string>();
	readonly reads: string[] = [];
	readonly writes: string[] = [];
	readonly removed: string[] = [];
	private readonly versions = new Map<string, number>();
	private version = 0;

	async read(name: string): Promise<string | null> {
		this.reads.push(name);
		return this.files.get(name) ?? null;
	}
	async write(name: string, text: string): Promise<void> {
		this.put(name, text);
		this.writes.push(name);
	}
	async remove(name: string): Promise<void> {
		this.files.delete(name);
		this.removed.push(name);
	}
	async stamp(name: string): Promise<string | null> {
		return this.files.has(name) ? `v${this.versions.get(name) ?? 0}` : null;
	}
	/** A file put there behind the keeper's back (a sync). */
	put(name: string, text: string): void {
		this.files.set(name, text);
		this.versions.set(name, ++this.version);
	}
	/** The part files, by name. */
	parts(): string[] {
		return [...this.files.keys()].filter((n) => n.startsWith("snapshot/part-")).sort();
	}
}
