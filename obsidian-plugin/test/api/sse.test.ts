import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { nodeEventStream, type NodeRequestFn } from "../../src/api/events";
import { SseParser } from "../../src/api/sse";

const STREAM = 'event: state\ndata: {"a":1}\n\n: keepalive\n\nevent: progress\ndata: {"done":1,\ndata: "total":2}\n\ndata: plain\n\n';
const EXPECTED = [
	{ event: "state", data: '{"a":1}' },
	{ event: "progress", data: '{"done":1,\n"total":2}' },
	{ event: "message", data: "plain" },
];

describe("SseParser", () => {
	it.each([1, 2, 3, 5, 7, 1000])("parses the stream fed in chunks of %i characters", (size) => {
		const parser = new SseParser();
		const out = [];
		for (let i = 0; i < STREAM.length; i += size) out.push(...parser.feed(STREAM.slice(i, i + size)));
		expect(out).toEqual(EXPECTED);
	});

	it.each([
		["CRLF", STREAM.replace(/\n/g, "\r\n")],
		["CR", STREAM.replace(/\n/g, "\r")],
	])("accepts %s line ends, even split between chunks", (_name, text) => {
		for (const size of [1, 2, 3]) {
			const parser = new SseParser();
			const out = [];
			for (let i = 0; i < text.length; i += size) out.push(...parser.feed(text.slice(i, i + size)));
			expect(out).toEqual(EXPECTED);
		}
	});

	it("keeps an unfinished event until its blank line", () => {
		const parser = new SseParser();
		expect(parser.feed("event: ready\ndata: {}\n")).toEqual([]);
		expect(parser.feed("\n")).toEqual([{ event: "ready", data: "{}" }]);
	});

	it("ignores unknown fields and a field without a value", () => {
		const parser = new SseParser();
		expect(parser.feed("id: 4\nretry: 10\ndata\n\n")).toEqual([{ event: "message", data: "" }]);
	});
});

class FakeResponse extends EventEmitter {
	constructor(public statusCode: number) {
		super();
	}
	setEncoding(): void {}
	resume(): void {}
}

class FakeRequest extends EventEmitter {
	destroyed = false;
	ended = false;
	end(): void {
		this.ended = true;
	}
	destroy(): void {
		this.destroyed = true;
	}
}

function fakeHttp(status: number): { request: NodeRequestFn; res: FakeResponse; req: FakeRequest; calls: unknown[] } {
	const res = new FakeResponse(status);
	const req = new FakeRequest();
	const calls: unknown[] = [];
	const request = ((url: string, options: unknown, cb: (r: FakeResponse) => void) => {
		calls.push({ url, options });
		queueMicrotask(() => cb(res));
		return req;
	}) as unknown as NodeRequestFn;
	return { request, res, req, calls };
}

describe("nodeEventStream", () => {
	it("opens with the headers, parses messages and reports the end", async () => {
		const http = fakeHttp(200);
		const log: string[] = [];
		nodeEventStream(http.request).open("http://127.0.0.1:1/v1/events", { Authorization: "Bearer t" }, {
			onOpen: () => log.push("open"),
			onMessage: (e, d) => log.push(`${e}:${d}`),
			onClose: (err) => log.push(`close:${err?.message ?? ""}`),
		});
		await Promise.resolve();
		http.res.emit("data", "event: ready\ndata: {}\n\nevent: err");
		http.res.emit("data", "or\ndata: {}\n\n");
		http.res.emit("end");
		http.res.emit("end");
		expect(http.calls[0]).toEqual({ url: "http://127.0.0.1:1/v1/events", options: { method: "GET", headers: { Authorization: "Bearer t" } } });
		expect(http.req.ended).toBe(true);
		expect(log).toEqual(["open", "ready:{}", "error:{}", "close:events: the server closed the stream"]);
	});

	it("reports a refused stream and a network error once", async () => {
		const http = fakeHttp(401);
		const log: string[] = [];
		nodeEventStream(http.request).open("u", {}, {
			onOpen: () => log.push("open"),
			onMessage: () => log.push("message"),
			onClose: (err) => log.push(`close:${err?.message ?? ""}`),
		});
		await Promise.resolve();
		http.req.emit("error", new Error("later"));
		expect(log).toEqual(["close:events: HTTP 401"]);
	});

	it("close() destroys the request and silences later data", async () => {
		const http = fakeHttp(200);
		const log: string[] = [];
		const stream = nodeEventStream(http.request).open("u", {}, {
			onOpen: () => log.push("open"),
			onMessage: () => log.push("message"),
			onClose: () => log.push("close"),
		});
		await Promise.resolve();
		stream.close();
		http.res.emit("data", "data: x\n\n");
		http.res.emit("end");
		expect(http.req.destroyed).toBe(true);
		expect(log).toEqual(["open"]);
	});
});
