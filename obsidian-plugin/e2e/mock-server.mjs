// A stand-in for `vaultheat serve`, written to docs/api.md, for UI work and screenshots while
// the real server is being built (run-e2e.mjs --mock). It is deliberately simple: TF-IDF over
// heading-sized chunks for "vector" scores, word overlap for "lexical", one link hop for "heat".
// It keeps the server's contract: loopback Host only, no foreign Origin, bearer token on every
// route but /v1/health, `schema` tags, {error:{code,message}} bodies, SSE with `state` first,
// and the discovery file <vault>/.vaultheat/server.json.
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join, relative, sep } from "node:path";

const STOP = new Set(
	"the and for are but not you all any can had her was one our out day get has him his how man new now old see two way who boy did its let put say she too use that with this from they will would there their what about which when make like time just know take into year your good some could them than then look only come over also back after work first well even want because these give most very have been were more other such".split(
		" ",
	),
);

function words(text) {
	return (text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []).filter((w) => !STOP.has(w));
}

function listNotes(root) {
	const out = [];
	const walk = (dir) => {
		for (const name of readdirSync(dir)) {
			if (name.startsWith(".")) continue;
			const full = join(dir, name);
			const st = statSync(full);
			if (st.isDirectory()) walk(full);
			else if (name.toLowerCase().endsWith(".md")) out.push(relative(root, full).split(sep).join("/"));
		}
	};
	walk(root);
	return out.sort();
}

function parseNote(path, raw) {
	const rawLines = raw.split("\n");
	const lines = rawLines.map((l) => l.replace(/\r$/, "").replace(/^\uFEFF/, ""));
	let start = 0;
	let title = path.replace(/^.*\//, "").replace(/\.md$/i, "");
	if (lines[0] === "---") {
		const end = lines.indexOf("---", 1);
		if (end > 0) {
			for (const l of lines.slice(1, end)) {
				const m = /^title:\s*(.+)$/.exec(l);
				if (m) title = m[1].trim();
			}
			start = end + 1;
		}
	}
	const chunks = [];
	const headings = [];
	let current = null;
	let byte = Buffer.byteLength(rawLines.slice(0, start).join("\n") + (start ? "\n" : ""));
	for (let i = start; i < lines.length; i++) {
		const line = lines[i];
		const h = /^(#{1,6})\s+(.*)$/.exec(line);
		if (h || !current) {
			if (h) {
				const level = h[1].length;
				while (headings.length && headings[headings.length - 1].level >= level) headings.pop();
				headings.push({ level, text: h[2].trim() });
			}
			current = { heading_path: headings.map((x) => x.text), line_start: i + 1, line_end: i + 1, byte_start: byte, lines: [] };
			chunks.push(current);
		}
		current.lines.push(line);
		current.line_end = i + 1;
		byte += Buffer.byteLength(rawLines[i]) + 1;
		current.byte_end = byte - 1;
	}
	const links = [...raw.matchAll(/\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]/g)].map((m) => m[1].trim());
	return {
		path,
		title,
		folder: path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "",
		links,
		chunks: chunks
			.map((c) => ({ ...c, text: c.lines.join("\n").trim() }))
			.filter((c) => c.text.length > 0)
			.map(({ lines: _l, ...c }) => c),
	};
}

export class MockIndex {
	constructor(vault) {
		this.vault = vault;
		this.notes = new Map();
		this.chunks = [];
		this.df = new Map();
		this.skipped = [];
		this.nextId = 1;
	}

	load(paths = listNotes(this.vault)) {
		for (const p of paths) this.loadOne(p);
		this.rebuild();
	}

	loadOne(path) {
		let raw;
		try {
			raw = readFileSync(join(this.vault, path), "utf8");
		} catch {
			this.notes.delete(path);
			return;
		}
		if (/^vaultheat:\s*exclude/m.test(raw)) {
			this.notes.delete(path);
			this.skipped = [...this.skipped.filter((s) => s.path !== path), { path, reason: "excluded by frontmatter (vaultheat: exclude)" }];
			return;
		}
		this.notes.set(path, parseNote(path, raw));
	}

	rebuild() {
		this.chunks = [];
		this.df = new Map();
		for (const note of this.notes.values()) {
			for (const c of note.chunks) {
				c.chunk_id = this.nextId++;
				c.path = note.path;
				c.terms = words(`${note.title} ${c.heading_path.join(" ")} ${c.text}`);
				this.chunks.push(c);
				for (const w of new Set(c.terms)) this.df.set(w, (this.df.get(w) ?? 0) + 1);
			}
		}
		for (const c of this.chunks) c.vec = this.vector(c.terms);
	}

	vector(terms) {
		const tf = new Map();
		for (const w of terms) tf.set(w, (tf.get(w) ?? 0) + 1);
		const n = Math.max(1, this.chunks.length);
		const vec = new Map();
		let norm = 0;
		for (const [w, f] of tf) {
			const v = (1 + Math.log(f)) * Math.log(1 + n / (1 + (this.df.get(w) ?? 0)));
			vec.set(w, v);
			norm += v * v;
		}
		norm = Math.sqrt(norm) || 1;
		for (const [w, v] of vec) vec.set(w, v / norm);
		return vec;
	}

	resolve(target) {
		const t = target.toLowerCase().replace(/\.md$/, "");
		for (const p of this.notes.keys()) {
			const lp = p.toLowerCase().replace(/\.md$/, "");
			if (lp === t || lp.endsWith(`/${t}`)) return p;
		}
		return null;
	}

	outLinks(path) {
		return new Set((this.notes.get(path)?.links ?? []).map((l) => this.resolve(l)).filter(Boolean));
	}

	score(queryTerms, filter = () => true) {
		const q = this.vector(queryTerms);
		const qset = new Set(queryTerms);
		return this.chunks
			.filter((c) => filter(c))
			.map((c) => {
				let dot = 0;
				for (const [w, v] of q) dot += v * (c.vec.get(w) ?? 0);
				const shared = [...new Set(c.terms)].filter((w) => qset.has(w)).length;
				const lexical = qset.size ? shared / qset.size : 0;
				// `absolute`: the mock's stand-in for the calibrated relevance (contract "relevance"):
				// the share of the query's words the passage has, the same scale for every query.
				return { chunk: c, vector: dot, lexical, absolute: lexical };
			});
	}

	get linkCounts() {
		let resolved = 0;
		let unresolved = 0;
		for (const n of this.notes.values()) for (const l of n.links) this.resolve(l) ? resolved++ : unresolved++;
		return { resolved, unresolved };
	}
}

const WEIGHTS = { vector: 0.8, lexical: 0.1, heat: 0.1, fusion: 0, rerank: 0 };

function finalScore(c) {
	return WEIGHTS.vector * c.vector + WEIGHTS.lexical * c.lexical + WEIGHTS.heat * c.heat;
}

function normalize(rows) {
	const max = Math.max(1e-9, ...rows.map((r) => r.vector));
	for (const r of rows) {
		r.raw = { vector: r.vector, lexical: r.lexical, heat: r.heat, fusion: null, rerank: null };
		r.vector = Math.min(1, r.vector / max);
	}
	return rows;
}

function snippetOf(c) {
	return c.text.length > 300 ? `${c.text.slice(0, 300)}…` : c.text;
}

export async function startMockServer({ vault, port = 0, version = "0.1.0-mock", initialIndexMs = 1800 }) {
	const token = randomBytes(16).toString("hex");
	const index = new MockIndex(vault);
	const clients = new Set();
	let state = "indexing";
	let progress = null;
	let paused = false;
	let lastError = null;

	const statusDoc = () => ({
		schema: "vaultheat.status.v1",
		vault,
		index_dir: join(vault, ".vaultheat"),
		state,
		notes: index.notes.size,
		chunks: index.chunks.length,
		links: index.linkCounts,
		tags: 0,
		skipped: index.skipped,
		vectors: index.chunks.length,
		edges: { similar: index.chunks.length * 3, link: index.linkCounts.resolved, tag: 0 },
		model: { provider: "mock", name: "tf-idf", dimension: 0 },
		progress: state === "indexing" ? progress : null,
		last_error: lastError,
		paused,
	});

	const broadcast = (event, data) => {
		const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
		for (const res of clients) res.write(frame);
	};

	const runPass = (paths, stepMs) =>
		new Promise((resolve) => {
			const all = paths ?? listNotes(vault);
			state = "indexing";
			let done = 0;
			const started = Date.now();
			const tick = () => {
				if (done >= all.length) {
					index.rebuild();
					state = "ready";
					progress = null;
					broadcast("ready", { notes: index.notes.size, chunks: index.chunks.length });
					broadcast("state", statusDoc());
					resolve();
					return;
				}
				const path = all[done++];
				index.loadOne(path);
				const rate = done / Math.max(0.001, (Date.now() - started) / 1000);
				progress = { stage: "Embedding", done, total: all.length, rate, eta_s: (all.length - done) / Math.max(rate, 0.001) };
				broadcast("progress", progress);
				broadcast("note_indexed", { path });
				setTimeout(tick, stepMs);
			};
			tick();
		});

	const json = (res, status, doc) => {
		res.writeHead(status, { "content-type": "application/json" });
		res.end(JSON.stringify(doc));
	};
	const fail = (res, status, code, message) => json(res, status, { error: { code, message } });

	const readBody = (req) =>
		new Promise((resolve) => {
			let data = "";
			req.on("data", (c) => (data += c));
			req.on("end", () => {
				try {
					resolve(data ? JSON.parse(data) : {});
				} catch {
					resolve(undefined);
				}
			});
		});

	const related = (body) => {
		const source = body.path;
		const text = typeof body.text === "string" ? body.text : index.notes.get(source)?.chunks.map((c) => c.text).join("\n") ?? "";
		const cursorChar = typeof body.cursor === "number" ? Buffer.from(text).subarray(0, body.cursor).toString().length : text.length;
		const around = text.slice(Math.max(0, cursorChar - 1500), cursorChar + 1500);
		const terms = [...words(text), ...words(around), ...words(around)];
		const out = index.outLinks(source);
		const rows = index.score(terms, (c) => c.path !== source);
		const best = new Map();
		for (const r of rows) if (!best.has(r.chunk.path) || best.get(r.chunk.path).vector < r.vector) best.set(r.chunk.path, r);
		let results = normalize([...best.values()]).map((r) => {
			const linked = out.has(r.chunk.path);
			const back = index.outLinks(r.chunk.path).has(source);
			r.heat = linked || back ? 0.6 : [...out].some((p) => index.outLinks(p).has(r.chunk.path)) ? 0.3 : 0;
			const link_status = linked && back ? "both" : linked ? "linked" : back ? "backlinked" : "unlinked";
			return { r, link_status };
		});
		if (body.unlinked_only) results = results.filter((x) => x.link_status === "unlinked");
		results.sort((a, b) => finalScore(b.r) - finalScore(a.r));
		const top = Math.max(1, Math.min(100, body.top ?? 10));
		return {
			schema: "vaultheat.related.v1",
			path: source,
			took_ms: 3.2,
			results: results.slice(0, top).map(({ r, link_status }, i) => {
				const note = index.notes.get(r.chunk.path);
				const c = r.chunk;
				return {
					rank: i + 1,
					path: c.path,
					title: note.title,
					folder: note.folder,
					score: Number(finalScore(r).toFixed(4)),
					...relevanceOf(r),
					link_status,
					best_chunk: { chunk_id: c.chunk_id, heading_path: c.heading_path, line_start: c.line_start, line_end: c.line_end, byte_start: c.byte_start, byte_end: c.byte_end, text: snippetOf(c) },
					duplicates: [],
					components: { vector: r.vector, lexical: r.lexical, heat: r.heat, fusion: null, rerank: null },
					explain: null,
				};
			}),
		};
	};

	const relevanceOf = (r) => {
		const relevance = Number(Math.max(0, Math.min(1, r.absolute ?? 0)).toFixed(4));
		return { relevance, relevance_label: relevance >= 0.6 ? "strong" : relevance >= 0.3 ? "good" : "weak" };
	};

	const search = (body) => {
		const terms = words(body.query);
		const filter = (c) => {
			if (body.folder && !(c.path === body.folder || c.path.startsWith(`${body.folder}/`))) return false;
			if (body.tag) {
				const raw = readFileSync(join(vault, c.path), "utf8");
				if (!new RegExp(`(^|[\\s\\[,#])${body.tag}([\\s\\],]|$)`, "m").test(raw)) return false;
			}
			return true;
		};
		const rows = normalize(index.score(terms, filter).filter((r) => r.vector > 0 || r.lexical > 0));
		for (const r of rows) r.heat = 0;
		rows.sort((a, b) => finalScore(b) - finalScore(a));
		const top = Math.max(1, Math.min(100, body.top ?? 10));
		return {
			schema: "vaultheat.search.v1",
			query: body.query,
			took_ms: 4.1,
			files_only: false,
			results: rows.slice(0, top).map((r, i) => ({
				rank: i + 1,
				chunk_id: r.chunk.chunk_id,
				path: r.chunk.path,
				title: index.notes.get(r.chunk.path).title,
				heading_path: r.chunk.heading_path,
				line_start: r.chunk.line_start,
				line_end: r.chunk.line_end,
				byte_start: r.chunk.byte_start,
				byte_end: r.chunk.byte_end,
				text: snippetOf(r.chunk),
				text_truncated: r.chunk.text.length > 300,
				score: Number(finalScore(r).toFixed(4)),
				...relevanceOf(r),
				found_by: r.lexical > 0 && r.vector > 0 ? "both" : "vector",
				components: { vector: r.vector, lexical: r.lexical, heat: 0, fusion: null, rerank: null },
				explain: null,
			})),
		};
	};

	const explain = (body) => {
		let target;
		let seedChunk;
		let stage;
		let seedScore;
		let row;
		if (typeof body.chunk_id === "number") {
			target = index.chunks.find((c) => c.chunk_id === body.chunk_id);
			if (!target) return null;
			const rows = normalize(index.score(words(body.query)));
			row = rows.find((r) => r.chunk === target);
			seedChunk = target;
			stage = "vector";
			seedScore = row?.raw.vector ?? 0;
			row.heat = 0;
		} else {
			const doc = related({ path: body.path, text: body.text, cursor: body.cursor, top: 100 });
			const hit = doc.results.find((r) => r.path === body.target);
			if (!hit) return null;
			target = index.chunks.find((c) => c.chunk_id === hit.best_chunk.chunk_id);
			const sourceChunks = index.chunks.filter((c) => c.path === body.path);
			seedChunk = sourceChunks[0] ?? target;
			stage = body.text !== undefined ? "cursor" : "note";
			seedScore = 0.032;
			row = { vector: hit.components.vector, lexical: hit.components.lexical, heat: hit.components.heat, raw: { vector: hit.components.vector * 0.71, lexical: hit.components.lexical, heat: hit.components.heat / 20, fusion: null, rerank: null } };
		}
		const hops = [];
		if (seedChunk !== target) {
			const out = index.outLinks(seedChunk.path);
			const via = [...out].find((p) => index.outLinks(p).has(target.path));
			const first = via ? index.chunks.find((c) => c.path === via) : null;
			if (out.has(target.path)) {
				hops.push({ hop: 1, from_chunk: seedChunk.chunk_id, to_chunk: target.chunk_id, edge: "link", edge_weight: 1, type_weight: 1, decay: 0.5, heat: seedScore * 0.5, path: target.path, text: snippetOf(target) });
			} else if (first) {
				hops.push({ hop: 1, from_chunk: seedChunk.chunk_id, to_chunk: first.chunk_id, edge: "link", edge_weight: 1, type_weight: 1, decay: 0.5, heat: seedScore * 0.5, path: first.path, text: snippetOf(first) });
				hops.push({ hop: 2, from_chunk: first.chunk_id, to_chunk: target.chunk_id, edge: "link", edge_weight: 1, type_weight: 1, decay: 0.5, heat: seedScore * 0.25, path: target.path, text: snippetOf(target) });
			} else {
				hops.push({ hop: 1, from_chunk: seedChunk.chunk_id, to_chunk: target.chunk_id, edge: "similar", edge_weight: Number((0.55 + row.vector * 0.4).toFixed(2)), type_weight: 1, decay: 0.5, heat: seedScore * 0.4, path: target.path, text: snippetOf(target) });
			}
		}
		const normalized = { vector: row.vector, lexical: row.lexical, heat: row.heat, fusion: null, rerank: null };
		return {
			schema: "vaultheat.explain.v1",
			query: body.query ?? "",
			chunk_id: target.chunk_id,
			path: target.path,
			score: Number(finalScore(row).toFixed(4)),
			seed: { chunk_id: seedChunk.chunk_id, path: seedChunk.path, heading_path: seedChunk.heading_path, text: snippetOf(seedChunk), stage, seed_score: seedScore },
			hops,
			components: { raw: row.raw, normalized, weights: WEIGHTS, final: Number(finalScore(row).toFixed(4)) },
		};
	};

	const server = createServer(async (req, res) => {
		const host = (req.headers.host ?? "").replace(/:\d+$/, "");
		if (!["127.0.0.1", "localhost", "[::1]"].includes(host)) return fail(res, 403, "forbidden", "Host must be loopback");
		if (req.headers.origin && req.headers.origin !== "app://obsidian.md") return fail(res, 403, "forbidden", "Origin not allowed");
		const url = new URL(req.url, "http://127.0.0.1");
		const route = `${req.method} ${url.pathname}`;
		if (route === "GET /v1/health") return json(res, 200, { schema: "vaultheat.health.v1", status: "ok", version, state });
		if (req.headers.authorization !== `Bearer ${token}`) return fail(res, 401, "unauthorized", "Missing or wrong bearer token");
		const body = req.method === "POST" ? await readBody(req) : {};
		if (body === undefined) return fail(res, 400, "bad_request", "Body is not JSON");
		switch (route) {
			case "GET /v1/status":
				return json(res, 200, statusDoc());
			case "GET /v1/notes/status": {
				const path = url.searchParams.get("path") ?? "";
				const note = index.notes.get(path);
				return json(res, 200, { schema: "vaultheat.note_status.v1", path, exists: Boolean(note), indexed: Boolean(note), reason: note ? null : "not indexed yet", chunks: note?.chunks.length ?? 0, indexed_hash: note ? "abc123" : null, disk_hash: note ? "abc123" : null, fresh: Boolean(note) });
			}
			case "POST /v1/search":
				if (typeof body.query !== "string") return fail(res, 400, "bad_request", "query is required");
				if (index.chunks.length === 0) return fail(res, 409, "index_missing", "No index yet");
				return json(res, 200, search(body));
			case "POST /v1/related":
				if (typeof body.path !== "string") return fail(res, 400, "bad_request", "path is required");
				if (index.chunks.length === 0) return fail(res, 409, "index_missing", "No index yet");
				return json(res, 200, related(body));
			case "POST /v1/explain": {
				const doc = explain(body);
				return doc ? json(res, 200, doc) : fail(res, 404, "not_found", "No such result");
			}
			case "POST /v1/notes/changed": {
				const events = Array.isArray(body.events) ? body.events : [];
				for (const e of events) if (e.type === "rename" && e.old_path) index.notes.delete(e.old_path);
				for (const e of events) if (e.type === "delete") index.notes.delete(e.path);
				const paths = events.filter((e) => e.type !== "delete").map((e) => e.path);
				json(res, 200, { schema: "vaultheat.ack.v1", queued: events.length });
				void runPass(paths, 30);
				return;
			}
			case "POST /v1/index":
				json(res, 200, { schema: "vaultheat.ack.v1", queued: index.notes.size });
				void runPass(null, 40);
				return;
			case "POST /v1/index/pause":
			case "POST /v1/index/resume":
				paused = route.endsWith("pause");
				broadcast("state", statusDoc());
				return json(res, 200, { schema: "vaultheat.ack.v1" });
			case "GET /v1/events": {
				res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
				res.write(`event: state\ndata: ${JSON.stringify(statusDoc())}\n\n`);
				clients.add(res);
				const ping = setInterval(() => res.write(": ping\n\n"), 15000);
				req.on("close", () => {
					clearInterval(ping);
					clients.delete(res);
				});
				return;
			}
			case "GET /v1/openapi.json":
				return json(res, 200, { openapi: "3.0.3", info: { title: "vaultheat mock", version }, paths: {} });
			default:
				return fail(res, 404, "not_found", `No route ${route}`);
		}
	});

	await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
	const actualPort = server.address().port;
	const discovery = {
		url: `http://127.0.0.1:${actualPort}`,
		host: "127.0.0.1",
		port: actualPort,
		pid: process.pid,
		token,
		vault,
		started_at: new Date().toISOString(),
	};
	mkdirSync(join(vault, ".vaultheat"), { recursive: true });
	writeFileSync(join(vault, ".vaultheat", "server.json"), JSON.stringify(discovery, null, 2), { mode: 0o600 });
	index.notes.clear();
	const initial = runPass(null, Math.max(5, Math.round(initialIndexMs / Math.max(1, listNotes(vault).length))));
	return {
		url: discovery.url,
		token,
		initial,
		close: () =>
			new Promise((resolve) => {
				for (const res of clients) res.end();
				clients.clear();
				server.closeAllConnections?.();
				server.close(() => resolve());
			}),
	};
}
