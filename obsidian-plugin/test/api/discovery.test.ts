import { describe, expect, it } from "vitest";
import { DEFAULT_URL, isLoopbackUrl, parseDiscovery, resolveEndpoint } from "../../src/api/discovery";
import type { DiscoveryDoc } from "../../src/api/types";

const disc: DiscoveryDoc = {
	url: "http://127.0.0.1:40000",
	host: "127.0.0.1",
	port: 40000,
	pid: 99,
	token: "disc-token",
	vault: "/v",
	started_at: "2025-01-01T00:00:00Z",
};

describe("parseDiscovery", () => {
	it("reads a server.json", () => expect(parseDiscovery(JSON.stringify(disc))).toEqual(disc));
	it.each([
		["not JSON", "{"],
		["no token", JSON.stringify({ url: "http://127.0.0.1:1" })],
		["no url", JSON.stringify({ token: "t" })],
		["array", "[]"],
	])("rejects %s", (_n, text) => expect(parseDiscovery(text)).toBeNull());
	it("fills missing optional fields", () => {
		expect(parseDiscovery(JSON.stringify({ url: "http://127.0.0.1:1", token: "t" }))).toMatchObject({ host: "", port: 0, pid: 0 });
	});
});

describe("isLoopbackUrl", () => {
	it.each([
		["http://127.0.0.1:1", true],
		["http://127.8.9.10", true],
		["http://localhost:51764", true],
		["http://[::1]:5", true],
		["http://192.168.1.2:5", false],
		["http://example.org", false],
		["not a url", false],
	])("%s → %s", (url, want) => expect(isLoopbackUrl(url)).toBe(want));
});

describe("resolveEndpoint", () => {
	it.each([
		["defaults without discovery", { serverUrl: "", token: "" }, null, { url: DEFAULT_URL, token: "", tokenSource: "none" }],
		["discovery address and token", { serverUrl: "", token: "" }, disc, { url: disc.url, token: "disc-token", tokenSource: "discovery" }],
		["settings token wins", { serverUrl: "", token: " mine " }, disc, { url: disc.url, token: "mine", tokenSource: "settings" }],
		["same address in settings keeps the discovery token", { serverUrl: "http://127.0.0.1:40000/", token: "" }, disc, { url: disc.url, token: "disc-token", tokenSource: "discovery" }],
		["other local port gets no token", { serverUrl: "http://127.0.0.1:1234", token: "" }, disc, { url: "http://127.0.0.1:1234", token: "", tokenSource: "none" }],
		["remote address never gets the discovery token", { serverUrl: "http://10.0.0.5:40000", token: "" }, disc, { url: "http://10.0.0.5:40000", token: "", tokenSource: "none" }],
	])("%s", (_n, settings, discovery, want) => expect(resolveEndpoint(settings, discovery)).toEqual(want));
});
