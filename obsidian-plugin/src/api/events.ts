/**
 * The event-stream seam. `requestUrl` buffers whole answers, so GET /v1/events (a stream that
 * never ends) needs another path: on desktop, Node's `http` module, which like requestUrl sends
 * no browser Origin and obeys no CORS. Tests and the e2e page pass their own `request` function
 * with the same shape.
 */
import { SseParser } from "./sse";

// Types only (erased at build time): no Node module is loaded here; see platform/desktop.ts.
type ClientRequest = import("http").ClientRequest;
type IncomingMessage = import("http").IncomingMessage;
type RequestOptions = import("http").RequestOptions;

export interface EventStreamHandlers {
	onOpen(): void;
	onMessage(event: string, data: string): void;
	/** Called once when the stream ends, with the reason when it failed. */
	onClose(error: Error | null): void;
}

export interface EventStream {
	close(): void;
}

export interface EventStreamOpener {
	open(url: string, headers: Record<string, string>, handlers: EventStreamHandlers): EventStream;
}

export type NodeRequestFn = (
	url: string | URL,
	options: RequestOptions,
	callback: (res: IncomingMessage) => void,
) => ClientRequest;

export function nodeEventStream(request: NodeRequestFn): EventStreamOpener {
	return {
		open(url, headers, handlers) {
			let closed = false;
			const finish = (error: Error | null): void => {
				if (closed) return;
				closed = true;
				handlers.onClose(error);
			};
			const req = request(url, { method: "GET", headers }, (res) => {
				if (res.statusCode !== 200) {
					res.resume();
					finish(new Error(`events: HTTP ${res.statusCode ?? 0}`));
					return;
				}
				handlers.onOpen();
				const parser = new SseParser();
				res.setEncoding("utf8");
				res.on("data", (chunk: string) => {
					if (closed) return;
					for (const message of parser.feed(chunk)) handlers.onMessage(message.event, message.data);
				});
				res.on("end", () => finish(new Error("events: the server closed the stream")));
				res.on("error", (err: Error) => finish(err));
			});
			req.on("error", (err: Error) => finish(err));
			req.end();
			return {
				close() {
					if (closed) return;
					closed = true;
					req.destroy();
				},
			};
		},
	};
}
