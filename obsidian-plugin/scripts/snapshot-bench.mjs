#!/usr/bin/env node
// Measures the related-notes snapshot with the plugin's own code (src/state/snapshot-keeper.ts
// and the API client, bundled here with esbuild) against a running `vaultheat serve`:
//   1. build: every note's list through POST /v1/related/batch, then the file is encoded;
//   2. one edit: a line appended to one note, POST /v1/notes/changed, wait for the index to
//      take it, then the keeper's incremental update.
// Prints one JSON document. The vault is written (step 2): point it at a throwaway copy.
// --sample N builds the lists of N notes only (every k-th by path, of the whole index), for a
// machine too slow for all of them; the document then says what is measured and what is
// extrapolated from it.
//   node scripts/snapshot-bench.mjs --vault DIR --index-dir DIR [--batch 100] [--sample N] [--out snap.json]
import { appendFileSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import esbuild from "esbuild";

const arg = (name, fallback) => {
	const i = process.argv.indexOf(`--${name}`);
	return i === -1 ? fallback : process.argv[i + 1];
};
const vault = arg("vault");
const indexDir = arg("index-dir");
const batch = Number(arg("batch", "100"));
const out = arg("out", "");
const sample = Number(arg("sample", "0"));
if (!vault || !indexDir) {
	console.error("usage: snapshot-bench.mjs --vault DIR --index-dir DIR [--batch N] [--out FILE]");
	process.exit(2);
}

const root = fileURLToPath(new URL("..", import.meta.url));
const built = await esbuild.build({
	stdin: {
		contents: `export { SnapshotKeeper } from "./src/state/snapshot-keeper";
export { VaultheatClient } from "./src/api/client";
export { encodeSnapshot } from "./src/state/snapshot";`,
		resolveDir: root,
		loader: "ts",
	},
	bundle: true,
	format: "esm",
	platform: "node",
	write: false,
	logLevel: "silent",
});
const mod = await import(`data:text/javascript;base64,${Buffer.from(built.outputFiles[0].text).toString("base64")}`);

const discovery = JSON.parse(readFileSync(join(indexDir, "server.json"), "utf8"));
const transport = {
	async request(req) {
		const res = await fetch(req.url, { method: req.method, headers: { ...req.headers, "Content-Type": "application/json" }, body: req.body, signal: AbortSignal.timeout(req.timeoutMs) });
		return { status: res.status, text: await res.text() };
	},
};
const client = new mod.VaultheatClient(transport, () => ({ url: discovery.url, token: discovery.token }), { timeoutMs: 600000 });
globalThis.window ??= globalThis; // withTimeout uses window.setTimeout

function allNotes() {
	const files = [];
	const walk = (dir) => {
		for (const entry of readdirSync(dir, { withFileTypes: true })) {
			if (entry.name.startsWith(".")) continue;
			const full = join(dir, entry.name);
			if (entry.isDirectory()) walk(full);
			else if (entry.name.endsWith(".md")) files.push({ path: relative(vault, full).split(sep).join("/"), mtime: statSync(full).mtimeMs });
		}
	};
	walk(vault);
	return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function listNotes() {
	const files = allNotes();
	if (!sample || sample >= files.length) return files;
	const step = files.length / sample;
	return Array.from({ length: sample }, (_, i) => files[Math.floor(i * step)]);
}

let saved = "";
const clock = { now: () => Date.now(), setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (id) => clearTimeout(id) };
const keeper = new mod.SnapshotKeeper({
	relatedMany: async (paths, top) => {
		const doc = await client.relatedBatch({ paths, top });
		return { notes: doc.notes, missing: doc.missing };
	},
	listNotes,
	exists: (p) => existsSync(join(vault, p)),
	load: async () => null,
	save: async (text) => {
		saved = text;
	},
	clock,
	batchSize: batch,
});

const t0 = performance.now();
const build = await keeper.update();
const buildS = (performance.now() - t0) / 1000;
const bytes = Buffer.byteLength(saved, "utf8");
const gz = gzipSync(saved).length;
// The paths table: in a full snapshot it holds (about) every note's path once.
const doc = JSON.parse(saved);
const pathsBytes = Buffer.byteLength(JSON.stringify(doc.paths), "utf8");
const allPathsBytes = Buffer.byteLength(JSON.stringify(allNotes().map((f) => f.path)), "utf8");
const notes = keeper.snapshot.notes.size;
const hits = [...keeper.snapshot.notes.values()].reduce((n, e) => n + e.hits.length, 0);
const t1 = performance.now();
mod.encodeSnapshot(keeper.snapshot);
const encodeMs = performance.now() - t1;
if (out) writeFileSync(out, saved);

// One edit: the note at the middle of the (sampled) list gets a new paragraph.
const files = listNotes();
const edited = files[Math.floor(files.length / 2)].path;
const statusOf = async () => client.status();
const before = await statusOf();
appendFileSync(join(vault, edited), "\n\nA new paragraph about espresso grinders, burr sizes and tamping pressure.\n");
const tEdit = performance.now();
await client.notesChanged([{ type: "modify", path: edited }]);
// The index took the edit once the note's stored hash matches the file again.
for (;;) {
	const s = await client.noteStatus(edited);
	if (s.indexed && s.fresh) break;
	if (performance.now() - tEdit > 600000) throw new Error("the edit was not indexed within 10 minutes");
	await new Promise((r) => setTimeout(r, 100));
}
const indexS = (performance.now() - tEdit) / 1000;
// The first query after an index pass reloads the index in the sidecar (vectors, graph): timed
// apart, on a note the edit does not touch, so the update below is the snapshot's own cost.
const tFirst = performance.now();
await client.related({ path: files[0].path === edited ? files[1].path : files[0].path, top: 10 });
const firstQueryS = (performance.now() - tFirst) / 1000;
const t2 = performance.now();
const update = await keeper.update();
const updateS = (performance.now() - t2) / 1000;

console.log(
	JSON.stringify(
		{
			vault,
			notes_in_vault: allNotes().length,
			sampled_notes: files.length,
			index_notes: before.notes,
			model: before.model,
			batch,
			build: { seconds: +buildS.toFixed(2), notes, related_hits: hits, bytes, gzip_bytes: gz, bytes_per_note: Math.round(bytes / Math.max(1, notes)), encode_ms: +encodeMs.toFixed(1), seconds_per_note: +(buildS / Math.max(1, notes)).toFixed(3), report: build },
			// Extrapolated to every note (only with --sample): per-note lists as measured, the paths table of the whole vault.
			extrapolated_full: sample ? { notes: allNotes().length, bytes: Math.round(((bytes - pathsBytes) / Math.max(1, notes)) * allNotes().length + allPathsBytes), build_seconds: Math.round((buildS / Math.max(1, notes)) * allNotes().length) } : null,
			one_edit: { note: edited, index_seconds: +indexS.toFixed(2), first_query_after_index_seconds: +firstQueryS.toFixed(2), snapshot_update_seconds: +updateS.toFixed(2), refreshed: update?.refreshed ?? 0, report: update },
		},
		null,
		2,
	),
);
