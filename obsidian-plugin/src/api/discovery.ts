/**
 * The discovery file `<vault>/.vaultheat/server.json` tells where a running sidecar listens and
 * which token it wants. Rules for using it live here, as pure functions: a token found on disk
 * is only ever sent to the address the same file names, never to a remote URL typed in settings.
 */
import type { DiscoveryDoc } from "./types";

export const DISCOVERY_PATH = ".vaultheat/server.json";
export const DEFAULT_URL = "http://127.0.0.1:51764";

/** `<indexDir>/server.json` for an index kept outside the vault (`--index-dir`). */
export function discoveryFileIn(indexDir: string): string {
	const dir = indexDir.replace(/[\\/]+$/, "");
	return `${dir}${dir.includes("\\") && !dir.includes("/") ? "\\" : "/"}server.json`;
}

export function parseDiscovery(text: string): DiscoveryDoc | null {
	let doc: unknown;
	try {
		doc = JSON.parse(text);
	} catch {
		return null;
	}
	if (!doc || typeof doc !== "object") return null;
	const d = doc as Partial<DiscoveryDoc>;
	if (typeof d.url !== "string" || typeof d.token !== "string") return null;
	return {
		url: d.url,
		token: d.token,
		host: typeof d.host === "string" ? d.host : "",
		port: typeof d.port === "number" ? d.port : 0,
		pid: typeof d.pid === "number" ? d.pid : 0,
		vault: typeof d.vault === "string" ? d.vault : "",
		started_at: d.started_at ?? "",
	};
}

export function isLoopbackUrl(url: string): boolean {
	let host: string;
	try {
		host = new URL(url).hostname;
	} catch {
		return false;
	}
	return host === "localhost" || host === "[::1]" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** A host on a private network: RFC 1918, link-local, CGNAT (Tailscale's 100.64/10), IPv6 ULA. */
function isPrivateHost(host: string): boolean {
	const h = host.replace(/^\[|\]$/g, "").toLowerCase();
	const m = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(h);
	if (m) {
		const a = Number(m[1]);
		const b = Number(m[2]);
		return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127);
	}
	return /^f[cd][0-9a-f]{2}:/.test(h) || h.startsWith("fe80:");
}

/**
 * A warning for an address typed in settings whose requests (note text, queries, the token)
 * would cross a network unencrypted: plain http:// to a host neither loopback nor private.
 */
export function plainHttpWarning(url: string): string | null {
	let parsed: URL;
	try {
		parsed = new URL(url.trim());
	} catch {
		return null;
	}
	if (parsed.protocol !== "http:" || isLoopbackUrl(url.trim()) || isPrivateHost(parsed.hostname)) return null;
	return `Plain http:// to ${parsed.hostname}: note text, queries and the token would travel unencrypted. Use https://, or an address on a private network (a VPN such as Tailscale, your LAN).`;
}

function sameOrigin(a: string, b: string): boolean {
	try {
		const ua = new URL(a);
		const ub = new URL(b);
		return ua.protocol === ub.protocol && ua.hostname === ub.hostname && ua.port === ub.port;
	} catch {
		return false;
	}
}

export interface ResolvedEndpoint {
	url: string;
	token: string;
	/** Where the token came from, for the status modal. */
	tokenSource: "settings" | "discovery" | "none";
}

/**
 * Settings win; an empty address means "the one in the discovery file, else the default".
 * The discovery token is used only for the address the discovery file itself names.
 */
export function resolveEndpoint(
	settings: { serverUrl: string; token: string },
	discovery: DiscoveryDoc | null,
): ResolvedEndpoint {
	const url = (settings.serverUrl.trim() || discovery?.url || DEFAULT_URL).replace(/\/+$/, "");
	if (settings.token.trim()) return { url, token: settings.token.trim(), tokenSource: "settings" };
	if (discovery && isLoopbackUrl(url) && sameOrigin(url, discovery.url)) {
		return { url, token: discovery.token, tokenSource: "discovery" };
	}
	return { url, token: "", tokenSource: "none" };
}
