#!/usr/bin/env node
// The plugin-side cost of a full snapshot, without a sidecar: every note of a vault gets 10
// listed notes drawn at random from the vault (seeded), with label, votes, link and line, and
// the file is encoded, decoded, planned against and looked up with the plugin's own code
// (src/state/snapshot.ts). Sizes depend on path lengths and counts, not on which notes are
// listed; the time to fetch the lists from a sidecar is measured by snapshot-bench.mjs.
//   node scripts/snapshot-size.mjs --vault DIR
import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import esbuild from "esbuild";

const i = process.argv.indexOf("--vault");
const vault = i === -1 ? null : process.argv[i + 1];
if (!vault) {
	console.error("usage: snapshot-size.mjs --vault DIR");
	process.exit(2);
}
const root = fileURLToPath(new URL("..", import.meta.url));
const built = await esbuild.build({
	stdin: { contents: `export * from "./src/state/snapshot";`, resolveDir: root, loader: "ts" },
	bundle: true,
	format: "esm",
	platform: "node",
	write: false,
	logLevel: "silent",
});
const S = await import(`data:text/javascript;base64,${Buffer.from(built.outputFiles[0].text).toString("base64")}`);

const files = [];
const walk = (dir) => {
	for (const e of readdirSync(dir, { withFileTypes: true })) {
		if (e.name.startsWith(".")) continue;
		const full = join(dir, e.name);
		if (e.isDirectory()) walk(full);
		else if (e.name.endsWith(".md")) files.push({ path: relative(vault, full).split(sep).join("/"), mtime: statSync(full).mtimeMs });
	}
};
walk(vault);
let seed = 1;
const rand = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
const labels = ["strong", "good", "good", "weak"];
const links = ["unlinked", "unlinked", "linked", "backlinked", "both"];
const snap = S.emptySnapshot();
const at = Date.now();
for (const f of files) {
	const hits = [];
	for (let k = 0; k < 10; k++) {
		const t = files[Math.floor(rand() * files.length)].path;
		hits.push({ path: t, relevance: Math.round(rand() * 1000) / 1000, label: labels[Math.floor(rand() * 4)], link: links[Math.floor(rand() * 5)], votes: Math.floor(rand() * 12), line: 1 + Math.floor(rand() * 80) });
	}
	snap.notes.set(f.path, { mtime: f.mtime, at, hits });
}
const time = (fn) => {
	const t = performance.now();
	const out = fn();
	return [out, +(performance.now() - t).toFixed(1)];
};
const [text, encodeMs] = time(() => S.encodeSnapshot(snap));
const [back, decodeMs] = time(() => S.decodeSnapshot(text));
const [work, planMs] = time(() => S.planRefresh(back, files));
const mtimes = new Map(files.map((f) => [f.path, f.mtime]));
const [, lookupMs] = time(() => S.lookup(back, files[0].path, (p) => mtimes.get(p) ?? null));
console.log(JSON.stringify({ notes: files.length, listed_per_note: 10, bytes: Buffer.byteLength(text), gzip_bytes: gzipSync(text).length, encode_ms: encodeMs, decode_ms: decodeMs, plan_refresh_ms: planMs, plan_refresh_work: work.refresh.length, lookup_ms: lookupMs }, null, 2));
