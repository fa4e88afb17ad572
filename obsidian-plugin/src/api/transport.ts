/**
 * The seam between the client and the network, after httpx's BaseTransport: the client only
 * ever calls `request`, so tests hand it a fake and the e2e page hands it a proxy.
 *
 * Production uses Obsidian's `requestUrl`: it runs outside the page's CORS rules (the server
 * accepts no browser Origin but Obsidian's, and answers no preflight), and unlike `fetch` it
 * needs no allow-list on the server. It cannot stream, so Server-Sent Events take their own
 * seam (`EventStreamOpener`, see events.ts).
 */
import type { RequestUrlParam, RequestUrlResponse } from "obsidian";
import { ApiError } from "./errors";

export interface HttpRequest {
	url: string;
	method: "GET" | "POST";
	headers: Record<string, string>;
	body?: string;
	/** Give up after this long; the answer, if it comes later, is dropped. */
	timeoutMs: number;
}

export interface HttpResponse {
	status: number;
	text: string;
}

export interface Transport {
	/** Resolves with any HTTP answer (errors included); rejects only when none came. */
	request(req: HttpRequest): Promise<HttpResponse>;
}

export type RequestUrlFn = (request: RequestUrlParam) => Promise<RequestUrlResponse>;

/** Rejects with ApiError("timeout") when `promise` takes longer than `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
	return new Promise<T>((resolve, reject) => {
		const timer = window.setTimeout(() => {
			reject(new ApiError("timeout", `${what} took longer than ${Math.round(ms / 1000)} s`));
		}, ms);
		promise.then(
			(value) => {
				window.clearTimeout(timer);
				resolve(value);
			},
			(err: unknown) => {
				window.clearTimeout(timer);
				reject(err instanceof Error ? err : new Error(String(err)));
			},
		);
	});
}

export function requestUrlTransport(requestUrl: RequestUrlFn): Transport {
	return {
		async request(req: HttpRequest): Promise<HttpResponse> {
			const call = requestUrl({
				url: req.url,
				method: req.method,
				headers: req.headers,
				body: req.body,
				contentType: req.body === undefined ? undefined : "application/json",
				throw: false,
			});
			let response: RequestUrlResponse;
			try {
				response = await withTimeout(call, req.timeoutMs, `${req.method} ${new URL(req.url).pathname}`);
			} catch (err) {
				if (err instanceof ApiError) throw err;
				throw new ApiError("unreachable", err instanceof Error ? err.message : String(err));
			}
			return { status: response.status, text: response.text };
		},
	};
}
