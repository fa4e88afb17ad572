import { describe, expect, it } from "vitest";
import { joinUrl, parseAnswer, VaultheatClient } from "../../src/api/client";
import { ApiError } from "../../src/api/errors";
import { requestUrlTransport } from "../../src/api/transport";
import { FakeTransport, apiError, json, statusDoc } from "../helpers";

const endpoint = { url: "http://127.0.0.1:51764", token: "secret" };

describe("parseAnswer", () => {
	it.each([
		["error document", apiError(409, "index_missing", "No index yet"), "http", "index_missing", "No index yet"],
		["bare 401", { status: 401, text: "" }, "http", "unauthorized", "HTTP 401"],
		["bare 403", { status: 403, text: "nope" }, "http", "forbidden", "HTTP 403"],
		["bare 500", { status: 500, text: "<html>" }, "http", "server", "HTTP 500"],
		["not JSON", { status: 200, text: "<html>" }, "protocol", "protocol", "The server's answer was not JSON."],
		["wrong schema", json(200, { schema: "vaultheat.search.v2" }), "protocol", "protocol", "Expected a vaultheat.status.v1 document, got vaultheat.search.v2."],
		["no schema", json(200, { ok: true }), "protocol", "protocol", "Expected a vaultheat.status.v1 document, got none."],
	])("%s", (_name, response, kind, code, message) => {
		let caught: unknown;
		try {
			parseAnswer(response, "vaultheat.status.v1");
		} catch (err) {
			caught = err;
		}
		expect(caught).toBeInstanceOf(ApiError);
		expect(caught).toMatchObject({ kind, code, message });
	});

	it("returns the document when the schema matches", () => {
		const doc = statusDoc();
		expect(parseAnswer(json(200, doc), "vaultheat.status.v1")).toEqual(doc);
	});
});

describe("joinUrl", () => {
	it.each([
		["http://127.0.0.1:1", "/v1/health", "http://127.0.0.1:1/v1/health"],
		["http://127.0.0.1:1/", "/v1/health", "http://127.0.0.1:1/v1/health"],
		["http://127.0.0.1:1///", "/v1/x", "http://127.0.0.1:1/v1/x"],
	])("%s + %s", (base, path, want) => expect(joinUrl(base, path)).toBe(want));
});

describe("VaultheatClient", () => {
	it("sends the bearer token, JSON bodies and the right paths", async () => {
		const t = new FakeTransport()
			.on("POST /v1/related", () => json(200, { schema: "vaultheat.related.v1", path: "A.md", took_ms: 1, results: [] }))
			.on("GET /v1/notes/status", () =>
				json(200, { schema: "vaultheat.note_status.v1", path: "A b.md", exists: true, indexed: true, reason: null, chunks: 2, indexed_hash: "x", disk_hash: "x", fresh: true }),
			)
			.on("POST /v1/notes/changed", () => json(200, { schema: "vaultheat.ack.v1", queued: 1 }))
			.on("POST /v1/index", () => json(200, { schema: "vaultheat.ack.v1" }));
		const client = new VaultheatClient(t, () => endpoint);
		await client.related({ path: "A.md", text: "hello", cursor: 3 });
		await client.noteStatus("A b.md");
		await client.notesChanged([{ type: "rename", path: "B.md", old_path: "A.md" }]);
		await client.index(true);
		await client.index();
		const [related, note, changed, full, plain] = t.requests;
		expect(related?.req.headers.Authorization).toBe("Bearer secret");
		expect(related?.body).toEqual({ path: "A.md", text: "hello", cursor: 3 });
		expect(note?.req.url).toBe("http://127.0.0.1:51764/v1/notes/status?path=A%20b.md");
		expect(note?.req.method).toBe("GET");
		expect(note?.req.body).toBeUndefined();
		expect(changed?.body).toEqual({ events: [{ type: "rename", path: "B.md", old_path: "A.md" }] });
		expect(full?.body).toEqual({ full: true });
		expect(plain?.body).toEqual({});
	});

	it("sends no Authorization header without a token, and follows endpoint changes", async () => {
		const t = new FakeTransport().on("GET /v1/health", () => json(200, { schema: "vaultheat.health.v1", status: "ok", version: "0.1.0", state: "ready" }));
		let current = { url: "http://127.0.0.1:1", token: "" };
		const client = new VaultheatClient(t, () => current);
		await client.health();
		current = { url: "http://127.0.0.1:2", token: "t2" };
		await client.health();
		expect(t.requests[0]?.req.headers.Authorization).toBeUndefined();
		expect(t.requests[1]?.req.url).toBe("http://127.0.0.1:2/v1/health");
		expect(t.requests[1]?.req.headers.Authorization).toBe("Bearer t2");
		expect(t.requests[0]?.req.timeoutMs).toBeLessThan(5000);
	});

	it("describes the events request", () => {
		const client = new VaultheatClient(new FakeTransport(), () => endpoint);
		expect(client.eventsRequest()).toEqual({
			url: "http://127.0.0.1:51764/v1/events",
			headers: { Authorization: "Bearer secret", Accept: "text/event-stream" },
		});
	});
});

describe("requestUrlTransport", () => {
	it("passes the request through without throwing on HTTP errors", async () => {
		const seen: unknown[] = [];
		const transport = requestUrlTransport(async (p) => {
			seen.push(p);
			return { status: 409, text: "{}", headers: {}, json: {}, arrayBuffer: new ArrayBuffer(0) };
		});
		const res = await transport.request({ url: "http://127.0.0.1:1/v1/search", method: "POST", headers: { A: "b" }, body: "{}", timeoutMs: 1000 });
		expect(res).toEqual({ status: 409, text: "{}" });
		expect(seen[0]).toMatchObject({ throw: false, contentType: "application/json", method: "POST", headers: { A: "b" } });
	});

	it("maps a network failure to unreachable", async () => {
		const transport = requestUrlTransport(() => Promise.reject(new Error("net::ERR_CONNECTION_REFUSED")));
		await expect(transport.request({ url: "http://127.0.0.1:1/v1/health", method: "GET", headers: {}, timeoutMs: 1000 })).rejects.toMatchObject({
			kind: "unreachable",
			message: "net::ERR_CONNECTION_REFUSED",
		});
	});

	it("gives up after the timeout", async () => {
		const transport = requestUrlTransport(() => new Promise(() => undefined));
		await expect(transport.request({ url: "http://127.0.0.1:1/v1/search", method: "POST", headers: {}, timeoutMs: 20 })).rejects.toMatchObject({
			kind: "timeout",
		});
	});
});
