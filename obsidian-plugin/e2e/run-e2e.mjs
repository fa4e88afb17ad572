#!/usr/bin/env node
// End-to-end test of the built plugin in headless Chromium against a running sidecar.
//
//   node e2e/run-e2e.mjs            real `vaultheat serve` (VAULTHEAT_BIN, default ../.venv/bin/vaultheat)
//   node e2e/run-e2e.mjs --mock     the mock server in e2e/mock-server.mjs (same API contract)
//   --screenshots[=DIR]             also copy the screenshots to DIR (default <repo>/docs/screenshots)
//   --keep                          keep the tmp vault and print its path
//
// Steps: build main.js and a browser bundle of the obsidian stub; copy examples/vault to a tmp
// folder; install the plugin into it with `vaultheat plugin install --vault` (as a user does)
// and run THAT copy; start the server on the vault and read <vault>/.vaultheat/server.json;
// serve a page that loads the installed main.js as Obsidian does, with requestUrl and
// Server-Sent Events going through a proxy here that drops the browser's Origin (as Obsidian's
// requestUrl sends none); drive it with playwright-core and Debian's chromium. It ends by
// relaunching the page (Obsidian quit and opened again) to adopt and stop the running sidecar,
// and by a first run's setup card. Ends with "e2e: N passed, N failed".
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";
import { chromium } from "playwright-core";
import { startMockServer } from "./mock-server.mjs";
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { compareWireTypes, pendingFields } from "./openapi-check.mjs";
import { buildPdf } from "./pdf.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const pluginDir = resolve(here, "..");
const repoDir = resolve(pluginDir, "..");
const outDir = join(here, ".out");
const shotsDir = join(outDir, "screenshots");

const argv = process.argv.slice(2);
const MOCK = argv.includes("--mock");
const KEEP = argv.includes("--keep");
const shotsArg = argv.find((a) => a.startsWith("--screenshots"));
const COPY_SHOTS = shotsArg ? (shotsArg.includes("=") ? resolve(shotsArg.split("=")[1]) : join(repoDir, "docs", "screenshots")) : null;
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const VAULTHEAT_BIN = resolve(pluginDir, process.env.VAULTHEAT_BIN ?? "../.venv/bin/vaultheat");
const SERVER_TIMEOUT_MS = Number(process.env.E2E_SERVER_TIMEOUT_S ?? 240) * 1000;
const INDEX_TIMEOUT_MS = Number(process.env.E2E_INDEX_TIMEOUT_S ?? 300) * 1000;

function log(...args) {
	console.log("[e2e]", ...args);
}

function die(message) {
	console.error(`[e2e] FATAL: ${message}`);
	console.log("e2e: 0 passed, 1 failed");
	process.exit(1);
}

// ---------- build ----------

function build() {
	const r = spawnSync(process.execPath, ["esbuild.config.mjs", "production"], { cwd: pluginDir, stdio: "inherit" });
	if (r.status !== 0) die("building main.js failed");
	mkdirSync(outDir, { recursive: true });
	esbuild.buildSync({
		entryPoints: [join(here, "page", "harness.ts")],
		bundle: true,
		format: "iife",
		platform: "browser",
		target: "chrome120",
		outfile: join(outDir, "harness.js"),
		logLevel: "warning",
	});
	esbuild.buildSync({
		entryPoints: [join(pluginDir, "src", "api", "wire-fields.ts")],
		bundle: true,
		format: "esm",
		platform: "node",
		outfile: join(outDir, "wire-fields.mjs"),
		logLevel: "warning",
	});
}

// ---------- vault ----------

function listFiles(root) {
	const out = [];
	const walk = (dir) => {
		for (const name of readdirSync(dir)) {
			const full = join(dir, name);
			if (statSync(full).isDirectory()) {
				if (name !== ".vaultheat") walk(full);
			} else out.push(relative(root, full).split(sep).join("/"));
		}
	};
	walk(root);
	return out;
}

const PLUGIN_FILES = ["main.js", "manifest.json", "styles.css"];

/** `vaultheat plugin install --vault VAULT`, as the README tells a user; the folder it wrote. */
function installPlugin(vault) {
	if (!existsSync(VAULTHEAT_BIN)) {
		if (!MOCK) die(`cannot install the plugin: ${VAULTHEAT_BIN} does not exist (pip install -e . or set VAULTHEAT_BIN)`);
		const folder = join(vault, ".obsidian", "plugins", "vaultheat");
		mkdirSync(folder, { recursive: true });
		cpSync(join(pluginDir, "main.js"), join(folder, "main.js"));
		cpSync(join(repoDir, "manifest.json"), join(folder, "manifest.json"));
		cpSync(join(pluginDir, "styles.css"), join(folder, "styles.css"));
		log(`no vaultheat at ${VAULTHEAT_BIN}: copied the build into ${folder} (mock mode)`);
		return { folder, doc: null };
	}
	const r = spawnSync(VAULTHEAT_BIN, ["plugin", "install", "--vault", vault, "--json"], { encoding: "utf8" });
	if (r.status !== 0) die(`vaultheat plugin install failed (exit ${r.status}):\n${r.stderr}`);
	const doc = JSON.parse(r.stdout);
	log(`vaultheat plugin install: ${doc.state} ${doc.installed_version} in ${doc.folder} (from the ${doc.source.kind})`);
	return { folder: doc.folder, doc };
}

function copyVault(name = "vault") {
	const source = join(repoDir, "examples", "vault");
	if (!existsSync(source)) die(`${source} does not exist`);
	const tmp = mkdtempSync(join(tmpdir(), "vaultheat-e2e-"));
	const vault = join(tmp, name);
	cpSync(source, vault, { recursive: true, filter: (src) => !src.split(sep).includes(".vaultheat") });
	const notes = listFiles(vault).filter((p) => p.endsWith(".md"));
	if (notes.length === 0) die(`${source} has no notes`);
	return { tmp, vault, notes };
}

// ---------- servers ----------

async function waitFor(check, timeoutMs, what, intervalMs = 200) {
	const end = Date.now() + timeoutMs;
	let last;
	while (Date.now() < end) {
		try {
			const value = await check();
			if (value) return value;
		} catch (err) {
			last = err;
		}
		await new Promise((r) => setTimeout(r, intervalMs));
	}
	throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}${last ? ` (${last.message})` : ""}`);
}

/** What /v1/health reports as vault_id: sha256 of the resolved vault path, 16 hex digits. */
function vaultIdOf(vault) {
	return createHash("sha256").update(realpathSync(vault), "utf8").digest("hex").slice(0, 16);
}

async function startRealServer(vault, { indexDir = null, extraArgs = [] } = {}) {
	if (!existsSync(VAULTHEAT_BIN)) {
		die(`cannot start the sidecar: ${VAULTHEAT_BIN} does not exist. Install the package into the repo venv (pip install -e .) or set VAULTHEAT_BIN; use --mock to test the UI alone.`);
	}
	const args = ["serve", "--vault", vault, "--port", "0", ...(indexDir ? ["--index-dir", indexDir] : []), ...extraArgs];
	log(`starting ${VAULTHEAT_BIN} ${args.join(" ")}`);
	const child = spawn(VAULTHEAT_BIN, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PYTHONUNBUFFERED: "1" } });
	const output = [];
	const keep = (chunk) => {
		output.push(...chunk.toString("utf8").split("\n").filter(Boolean));
		output.splice(0, Math.max(0, output.length - 60));
	};
	child.stdout.on("data", keep);
	child.stderr.on("data", keep);
	let exited = null;
	child.on("exit", (code, signal) => (exited = { code, signal }));
	child.on("error", (err) => (exited = { code: -1, signal: err.message }));
	const discoveryPath = join(indexDir ?? join(vault, ".vaultheat"), "server.json");
	let discovery;
	try {
		discovery = await waitFor(
			() => {
				if (exited) throw Object.assign(new Error("exited"), { fatal: true });
				if (!existsSync(discoveryPath)) return null;
				const doc = JSON.parse(readFileSync(discoveryPath, "utf8"));
				return doc.url && doc.token ? doc : null;
			},
			SERVER_TIMEOUT_MS,
			`${discoveryPath}`,
		);
		// In remote mode (--allow-remote) health needs the token too.
		await waitFor(async () => (await fetch(`${discovery.url}/v1/health`, { headers: { Authorization: `Bearer ${discovery.token}` } })).ok, 60000, "GET /v1/health");
	} catch (err) {
		child.kill("SIGKILL");
		const why = exited ? `vaultheat serve exited (code ${exited.code}, ${exited.signal ?? "no signal"})` : err.message;
		die(`cannot start the sidecar: ${why}\n--- its output ---\n${output.join("\n") || "(nothing)"}`);
	}
	return {
		url: discovery.url,
		token: discovery.token,
		output,
		discoveryPath,
		exited: () => exited,
		close: async () => {
			if (exited) return;
			child.kill("SIGTERM");
			await waitFor(() => exited, 15000, "the sidecar to stop").catch(() => child.kill("SIGKILL"));
		},
	};
}

function isLoopback(url) {
	try {
		const host = new URL(url).hostname;
		// 127.0.0.0/8: the remote-mode check serves on 127.0.0.2 (never another address).
		return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === "localhost" || host === "[::1]";
	} catch {
		return false;
	}
}

/** Serves the page and proxies the plugin's requests like Obsidian's requestUrl (no Origin). */
function startPageServer(vault, outside = [], stylesCss = join(pluginDir, "styles.css")) {
	const requests = [];
	const files = {
		"/": null,
		"/theme.css": [join(here, "page", "theme.css"), "text/css"],
		"/styles.css": [stylesCss, "text/css"],
		"/harness.js": [join(outDir, "harness.js"), "text/javascript"],
	};
	const html = `<!doctype html><html><head><meta charset="utf-8"><title>Vaultheat e2e</title>
<link rel="stylesheet" href="/theme.css"><link rel="stylesheet" href="/styles.css"></head>
<body><script src="/harness.js"></script></body></html>`;
	const server = createServer((req, res) => {
		const path = new URL(req.url, "http://x").pathname;
		if (path === "/__proxy") return proxy(req, res, requests);
		if (path === "/__fs" && req.method === "POST") return fsOp(req, res, vault);
		if (path === "/__ext" && req.method === "POST") return extRead(req, res, outside);
		if (path === "/") {
			res.writeHead(200, { "content-type": "text/html" });
			return res.end(html);
		}
		const file = files[path];
		if (!file) {
			res.writeHead(404);
			return res.end();
		}
		res.writeHead(200, { "content-type": file[1], "cache-control": "no-store" });
		res.end(readFileSync(file[0]));
	});
	return new Promise((resolveServer) =>
		server.listen(0, "127.0.0.1", () => resolveServer({ url: `http://127.0.0.1:${server.address().port}`, requests, close: () => server.close() })),
	);
}

function proxy(req, res, requests) {
	const target = req.headers["x-vh-url"];
	if (typeof target !== "string" || !isLoopback(target)) {
		res.writeHead(400, { "content-type": "text/plain" });
		return res.end("proxy: only loopback targets");
	}
	const headers = { ...req.headers };
	for (const h of Object.keys(headers)) {
		if (["host", "origin", "referer", "x-vh-url", "x-vh-origin", "connection", "cookie", "accept-encoding", "content-length"].includes(h) || h.startsWith("sec-")) delete headers[h];
	}
	// The mobile app's requests carry its own Origin (capacitor://localhost on iOS).
	if (typeof req.headers["x-vh-origin"] === "string") headers.origin = req.headers["x-vh-origin"];
	const chunks = [];
	req.on("data", (c) => chunks.push(c));
	req.on("end", () => {
		const body = Buffer.concat(chunks);
		let parsed;
		try {
			parsed = body.length ? JSON.parse(body.toString("utf8")) : undefined;
		} catch {
			parsed = body.toString("utf8");
		}
		const entry = { at: Date.now(), method: req.method, path: new URL(target).pathname, body: parsed, status: 0 };
		requests.push(entry);
		if (body.length) headers["content-length"] = String(body.length);
		const upstream = httpRequest(target, { method: req.method, headers }, (up) => {
			entry.status = up.statusCode;
			const out = { ...up.headers };
			delete out["access-control-allow-origin"];
			res.writeHead(up.statusCode, out);
			// keep JSON answers (not the event stream): a check can read what the plugin was sent
			if (String(up.headers["content-type"] ?? "").includes("application/json")) {
				const got = [];
				up.on("data", (c) => got.push(c));
				up.on("end", () => {
					try {
						entry.response = JSON.parse(Buffer.concat(got).toString("utf8"));
					} catch {
						entry.response = null;
					}
				});
			}
			up.pipe(res);
		});
		upstream.on("error", (err) => {
			if (!res.headersSent) {
				res.writeHead(599, { "content-type": "text/plain" });
				res.end(`net::ERR_CONNECTION_REFUSED (${err.code ?? err.message})`);
			} else res.destroy();
		});
		res.on("close", () => upstream.destroy());
		upstream.end(body);
	});
}

/** Reads a file outside the vault for the page's `fs` shim, only below the folders allowed. */
function extRead(req, res, outside) {
	const chunks = [];
	req.on("data", (c) => chunks.push(c));
	req.on("end", () => {
		const path = resolve(Buffer.concat(chunks).toString("utf8"));
		if (!outside.some((dir) => path.startsWith(dir + sep)) || !existsSync(path)) {
			res.writeHead(404);
			return res.end();
		}
		res.writeHead(200, { "content-type": "text/plain" });
		res.end(readFileSync(path));
	});
}

function fsOp(req, res, vault) {
	const chunks = [];
	req.on("data", (c) => chunks.push(c));
	req.on("end", () => {
		try {
			const op = JSON.parse(Buffer.concat(chunks).toString("utf8"));
			const inside = (p) => {
				const full = resolve(vault, p);
				if (!full.startsWith(vault + sep)) throw new Error(`outside the vault: ${p}`);
				return full;
			};
			const path = inside(op.path);
			if (op.op === "write") {
				mkdirSync(dirname(path), { recursive: true });
				writeFileSync(path, op.data ?? "");
			} else if (op.op === "delete") rmSync(path, { force: true });
			else if (op.op === "rename") {
				const to = inside(op.newPath);
				mkdirSync(dirname(to), { recursive: true });
				renameSync(path, to);
			} else throw new Error(`unknown op ${op.op}`);
			res.writeHead(204);
			res.end();
		} catch (err) {
			res.writeHead(400, { "content-type": "text/plain" });
			res.end(String(err.message));
		}
	});
}

// ---------- the tests ----------

const results = [];
let afterEach = async () => undefined;
async function check(name, fn) {
	const started = Date.now();
	try {
		await fn();
		results.push({ name, ok: true });
		log(`PASS ${name} (${Date.now() - started} ms)`);
	} catch (err) {
		results.push({ name, ok: false, error: err });
		log(`FAIL ${name}: ${String(err.stack ?? err).split("\nCall log:")[0]}`);
	} finally {
		await afterEach().catch(() => undefined);
	}
}

function assert(condition, message) {
	if (!condition) throw new Error(message);
}

function bodyOf(raw) {
	const lines = raw.split("\n");
	let i = 0;
	if (lines[0] === "---") {
		const end = lines.indexOf("---", 1);
		i = end > 0 ? end + 1 : 0;
	}
	return lines
		.slice(i)
		.filter((l) => l.trim() && !/^#{1,6}\s/.test(l) && !/^[-*>|]/.test(l.trim()) && !l.includes("[["))
		.join(" ")
		.replace(/\s+/g, " ")
		.trim();
}

async function main() {
	if (!existsSync(CHROMIUM)) die(`${CHROMIUM} not found: apt-get install -y chromium (or set CHROMIUM_PATH)`);
	build();
	const { tmp, vault, notes } = copyVault();
	log(`vault: ${vault} (${notes.length} notes)`);
	// The plugin under test is the copy `vaultheat plugin install` put into the fresh vault.
	const installed = installPlugin(vault);
	const pluginCode = () => readFileSync(join(installed.folder, "main.js"), "utf8");
	const server = MOCK ? await startMockServer({ vault }) : await startRealServer(vault);
	log(`${MOCK ? "mock" : "real"} server at ${server.url}`);
	const page_ = await startPageServer(vault, [], join(installed.folder, "styles.css"));
	const browser = await chromium.launch({
		executablePath: CHROMIUM,
		args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
	});
	const page = await browser.newPage({ viewport: { width: 1280, height: 760 }, deviceScaleFactor: 1 });
	const consoleErrors = [];
	page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
	page.on("pageerror", (e) => consoleErrors.push(String(e)));
	rmSync(shotsDir, { recursive: true, force: true });
	mkdirSync(shotsDir, { recursive: true });
	// Screenshots in a reading view of the note (the editor is a plain textarea for typing).
	const shot = async (name) => {
		await page.evaluate(() => window.vh.reading(true));
		await page.waitForTimeout(350);
		await page.screenshot({ path: join(shotsDir, `${name}.png`) });
		await page.evaluate(() => window.vh.reading(false));
	};
	const bothThemes = async (name) => {
		await shot(`${name}-dark`);
		await page.evaluate(() => window.vh.setTheme("light"));
		await shot(`${name}-light`);
		await page.evaluate(() => window.vh.setTheme("dark"));
	};
	const statusText = () => page.locator(".vaultheat-statusbar-text").innerText();
	const rowPaths = () => page.$$eval(".vaultheat-row", (rows) => rows.map((r) => r.getAttribute("data-path")));
	const read = (p) => readFileSync(join(vault, p), "utf8");
	// A failed check must not leave a modal over the next one.
	afterEach = () => page.evaluate(() => window.vh.app?.openModals.slice().forEach((m) => m.close()));

	try {
		const repoManifest = JSON.parse(readFileSync(join(repoDir, "manifest.json"), "utf8"));
		await check("vaultheat plugin install put the three files, with the repository's id and version, into the fresh vault", async () => {
			const names = readdirSync(installed.folder).sort();
			assert(JSON.stringify(names) === JSON.stringify(PLUGIN_FILES), `${installed.folder} holds ${names.join(", ")}`);
			assert(installed.folder === join(realpathSync(vault), ".obsidian", "plugins", repoManifest.id), `installed into ${installed.folder}`);
			const got = JSON.parse(readFileSync(join(installed.folder, "manifest.json"), "utf8"));
			assert(got.id === repoManifest.id && got.version === repoManifest.version, `installed ${got.id} ${got.version}`);
			assert(readFileSync(join(installed.folder, "main.js"), "utf8") === readFileSync(join(pluginDir, "main.js"), "utf8"), "main.js is not this build");
			if (installed.doc) {
				const again = spawnSync(VAULTHEAT_BIN, ["plugin", "install", "--vault", vault, "--json"], { encoding: "utf8" });
				assert(again.status === 0 && JSON.parse(again.stdout).state === "current", `a second install changed something: ${again.stdout}`);
			}
		});
		await page.goto(page_.url);
		const files = Object.fromEntries(notes.map((p) => [p, read(p)]));
		const manifest = JSON.parse(readFileSync(join(installed.folder, "manifest.json"), "utf8"));
		const hidden = { ".vaultheat/server.json": readFileSync(join(vault, ".vaultheat", "server.json"), "utf8") };
		const hashes = { [realpathSync(vault)]: createHash("sha256").update(realpathSync(vault), "utf8").digest("hex") };
		await page.evaluate((o) => window.vh.boot(o), { files, hidden, basePath: vault, manifest, theme: "dark", hashes });
		const noteA = notes.includes("Garden/Composting.md") ? "Garden/Composting.md" : notes.slice().sort((a, b) => bodyOf(read(b)).length - bodyOf(read(a)).length)[0];
		await page.evaluate((p) => window.vh.openNote(p), noteA);
		// The page cannot start processes: the harness runs the sidecar (auto-start is covered by unit tests).
		await page.evaluate(() => window.vh.setPluginData({ autoStart: false, setupDone: true, keepSnapshot: true, snapshotAsked: true }));
		await page.evaluate(({ code, manifest }) => window.vh.loadPlugin(code, manifest), { code: pluginCode(), manifest });

		if (!MOCK) {
			await check("the plugin's wire types match the server's OpenAPI document", async () => {
				const res = await fetch(`${server.url}/v1/openapi.json`, { headers: { Authorization: `Bearer ${server.token}` } });
				assert(res.ok, `GET /v1/openapi.json: HTTP ${res.status}`);
				const { WIRE_FIELDS } = await import(join(outDir, "wire-fields.mjs"));
				const doc = await res.json();
				const problems = compareWireTypes(doc, WIRE_FIELDS);
				const pending = pendingFields(doc, WIRE_FIELDS);
				if (pending.length) log(`contract fields this server does not send yet (treated as optional): ${pending.join(", ")}`);
				assert(problems.length === 0, problems.join("\n"));
			});
		}

		let notesInIndex = 0;
		await check("the status bar shows the index (building it when empty)", async () => {
			let asked = false;
			const text = await waitFor(
				async () => {
					const t = await statusText();
					if (/No index yet/.test(t) && !asked) {
						asked = true;
						await page.evaluate(() => window.vh.command("vaultheat:update-index"));
					}
					return /^[\d,]+ notes?$/.test(t) ? t : null;
				},
				INDEX_TIMEOUT_MS,
				"the status bar to show the note count",
				250,
			);
			notesInIndex = Number(text.replace(/\D/g, ""));
			assert(notesInIndex > 0, `no notes indexed: ${text}`);
			log(`status bar: ${text}`);
		});

		let related = [];
		await check("the sidebar shows related notes for the open note", async () => {
			await page.evaluate(() => window.vh.command("vaultheat:open-related-notes"));
			await page.waitForSelector(".vaultheat-row", { timeout: 30000 });
			related = await rowPaths();
			const title = await page.locator(".vaultheat-header-title").innerText();
			assert(title === noteA.replace(/^.*\//, "").replace(/\.md$/, ""), `header says ${title}`);
			assert(!related.includes(noteA), "the note itself is listed");
			const badges = await page.$$eval(".vaultheat-badge", (b) => b.map((x) => x.textContent));
			assert(badges.length === related.length && badges.every((b) => ["Unlinked", "Linked", "Links here", "Both ways"].includes(b)), `badges: ${badges}`);
			await page.locator(".vaultheat-row").first().hover();
			await bothThemes("sidebar");
		});

		// The desktop keeps each note's related notes in its plugin folder for the phone (opted in
		// above), in 32 parts: noteA's list is in the part its path hashes to (FNV-1a, as partOf).
		const partOfPath = (path) => {
			let h = 0x811c9dc5;
			for (let i = 0; i < path.length; i++) h = Math.imul(h ^ path.charCodeAt(i), 0x01000193);
			return (h >>> 0) % 32;
		};
		const SNAPSHOT = `.obsidian/plugins/vaultheat/snapshot/part-${String(partOfPath(noteA)).padStart(2, "0")}.json`;
		/** A part's paths: each shares `shared[i]` leading characters with the one before. */
		const unshare = (doc) => {
			let previous = "";
			return doc.paths.map((tail, i) => (previous = previous.slice(0, doc.shared[i]) + tail));
		};
		let snapshotText = null;
		await check("the desktop writes the related notes snapshot into the plugin's folder, through Obsidian's adapter", async () => {
			// A snapshot written while the index was still at its words phase may lack noteA (its
			// chunks had no vectors yet); the update after the meaning phase adds it.
			let doc = null;
			let entry = null;
			snapshotText = await waitFor(
				async () => {
					const text = await page.evaluate((p) => window.vh.hiddenFile(p), SNAPSHOT);
					if (!text) return null;
					doc = JSON.parse(text);
					doc.paths = unshare(doc);
					entry = doc.notes.find((n) => doc.paths[n[0]] === noteA);
					return entry ? text : null;
				},
				180000,
				`a snapshot with a list for ${noteA}`,
				250,
			);
			assert(doc.format === "vaultheat.snapshot.part.v1", `format ${doc.format}`);
			const listed = entry[3].map((h) => doc.paths[h[0]]);
			assert(listed.length > 0 && listed.length <= 10 && listed.every((p) => notes.includes(p) && p !== noteA), `${noteA} lists ${listed.join(", ")}`);
			assert(!existsSync(join(vault, ".vaultheat", "related-snapshot.json")), "the sidecar wrote a snapshot");
			const overlap = listed.filter((p) => related.includes(p)).length;
			log(`snapshot: ${doc.notes.length} notes, ${Buffer.byteLength(snapshotText)} bytes; ${noteA}: ${listed.length} listed, ${overlap} also in the sidebar's live list`);
		});

		await check("typing in the editor updates the sidebar (debounced, with text and cursor)", async () => {
			const candidates = notes.filter((p) => p !== noteA && !related.slice(0, 3).includes(p) && bodyOf(read(p)).length > 200);
			assert(candidates.length > 0, "no note to type about");
			const noteB = candidates.sort((a, b) => bodyOf(read(b)).length - bodyOf(read(a)).length)[0];
			const sentence = bodyOf(read(noteB)).slice(0, 320);
			const before = page_.requests.filter((r) => r.path === "/v1/related").length;
			await page.focus("textarea.stub-editor");
			await page.keyboard.press("Control+End");
			await page.keyboard.type(`\n\n${sentence}`, { delay: 2 });
			const seen = await waitFor(
				async () => {
					const paths = await rowPaths();
					const updating = await page.locator(".vaultheat-related.is-updating").count();
					// top 5, not 3: link votes may lift notes the typed text's neighbours link to
					return !updating && paths.slice(0, 5).includes(noteB) ? paths : null;
				},
				30000,
				`${noteB} among the top 5 related notes`,
				250,
			);
			const sent = page_.requests.filter((r) => r.path === "/v1/related").slice(before);
			const last = sent.at(-1)?.body;
			assert(typeof last?.text === "string" && last.text.includes(sentence.slice(-40)), "the last query did not carry the editor text");
			assert(last.cursor === Buffer.byteLength(last.text.slice(0, last.text.indexOf(sentence) + sentence.length)), `cursor ${last.cursor} is not the UTF-8 offset of the caret`);
			assert(sent.length <= 8, `${sent.length} related queries for one burst of typing: debounce is not working`);
			log(`after typing about ${noteB}: ${seen.slice(0, 3).join(", ")} (${sent.length} queries)`);
		});

		let noteC = "";
		await check("semantic search returns results and opens the chosen one at its line", async () => {
			const pool = notes.filter((p) => p !== noteA && bodyOf(read(p)).length > 120);
			noteC = pool.includes("Coffee/Brewing/Espresso Extraction.md") ? "Coffee/Brewing/Espresso Extraction.md" : pool[0];
			const query = bodyOf(read(noteC)).split(/(?<=[.!?])\s/)[0].slice(0, 120);
			await page.evaluate(() => window.vh.command("vaultheat:semantic-search"));
			await page.waitForSelector(".vaultheat-search-modal .prompt-input");
			await page.keyboard.type(query, { delay: 5 });
			const items = await waitFor(
				async () => {
					const list = await page.$$eval(".vaultheat-suggestion", (els) => els.map((e) => ({ path: e.getAttribute("data-path"), line: Number(e.getAttribute("data-line")) })));
					return list.some((i) => i.path === noteC) ? list : null;
				},
				30000,
				`${noteC} in the search results for "${query}"`,
			);
			await bothThemes("search");
			assert(new Set(items.map((i) => i.path)).size === items.length, `a note is listed twice: ${items.map((i) => i.path).join(", ")}`);
			const index = items.findIndex((i) => i.path === noteC);
			for (let i = 0; i < index; i++) await page.keyboard.press("ArrowDown");
			await page.keyboard.press("Enter");
			await waitFor(async () => (await page.evaluate(() => window.vh.activeFile())) === noteC, 5000, `${noteC} to open`);
			const line = await page.evaluate(() => window.vh.cursorLine());
			assert(line === items[index].line - 1, `cursor on line ${line}, expected ${items[index].line - 1}`);
			assert((await page.locator(".vaultheat-search-modal").count()) === 0, "the modal stayed open");
		});

		await check("explain shows the score breakdown and the path", async () => {
			await page.waitForSelector(`.vaultheat-header-title:text-is("${noteC.replace(/^.*\//, "").replace(/\.md$/, "")}")`, { timeout: 10000 });
			await page.waitForSelector(".vaultheat-row", { timeout: 30000 });
			await page.waitForFunction(() => !document.querySelector(".vaultheat-related.is-updating"), null, { timeout: 30000 });
			const row = page.locator(".vaultheat-row").first();
			const rowScore = Number(await row.getAttribute("data-score"));
			await row.hover();
			await row.locator('[aria-label="Why is this related? (Ctrl+Shift+Enter)"]').click();
			await page.waitForSelector(".vaultheat-explain-final", { timeout: 30000 });
			const final = Number(await page.locator(".vaultheat-explain-final").innerText());
			const rows = await page.locator(".vaultheat-breakdown-row").count();
			const steps = await page.locator(".vaultheat-step").count();
			const direct = await page.locator(".vaultheat-explain-note").count();
			// a header, one row per score part (vector, lexical, heat, fusion, rerank, title, note, page, pointer), the total
			assert(rows === 11, `breakdown has ${rows} rows`);
			assert(steps > 0 || direct > 0, "no path and no direct-match note");
			assert(Math.abs(final - rowScore) <= 0.011, `explain says ${final}, the row says ${rowScore}`);
			log(`explain: final ${final}, ${steps} steps`);
			await bothThemes("explain");
			await page.keyboard.press("Escape");
		});

		await check("the status bar follows the index when a note is added", async () => {
			// A note added while the first build still fills vectors (its meaning phase) waits
			// for the model call in flight (the run yields to it, server/worker.py), which on a
			// loaded machine can outlast the wait below. Start from an idle server, as the check
			// is about the status bar following an update, not about how long the first build takes.
			const serverStatus = async () => (await fetch(`${server.url}/v1/status`, { headers: { Authorization: `Bearer ${server.token}` } })).json();
			await waitFor(async () => {
				const s = await serverStatus();
				return !s.indexing && s.queue === 0;
			}, 300000, "the server to end its first index run", 500);
			const before = Number((await statusText()).replace(/\D/g, ""));
			await page.evaluate(() =>
				window.vh.createNote("E2E/Kettle descaling.md", "# Kettle descaling\n\nCitric acid removes limescale from the kettle; rinse twice before brewing coffee again.\n"),
			);
			await waitFor(async () => Number((await statusText()).replace(/\D/g, "")) === before + 1, 60000, `the status bar to count ${before + 1} notes`, 200);
			const changed = page_.requests.filter((r) => r.path === "/v1/notes/changed").map((r) => r.body);
			assert(changed.some((b) => b?.events?.some((e) => e.type === "create" && e.path === "E2E/Kettle descaling.md")), "no create event was forwarded");
		});

		await check("the status modal's counts after an update match the server's status", async () => {
			await page.locator(".vaultheat-statusbar").click();
			await page.waitForSelector(".vaultheat-status-modal dt");
			await page.waitForFunction(() => [...document.querySelectorAll(".vaultheat-status-modal dt")].some((d) => d.textContent === "Indexed"), null, { timeout: 10000 });
			const text = await page.locator(".vaultheat-status-modal").innerText();
			assert(/Notes\s+[\d,]+/.test(text), "no note count");
			const truth = await (await fetch(`${server.url}/v1/status`, { headers: { Authorization: `Bearer ${server.token}` } })).json();
			const facts = await page.$$eval(".vaultheat-status-modal dt", (dts) => Object.fromEntries(dts.map((d) => [d.textContent, d.nextElementSibling?.textContent ?? ""])));
			const n = (v) => Number(String(v).replace(/\D/g, ""));
			for (const [label, value] of [["Notes", truth.notes], ["Passages", truth.chunks], ["Vectors", truth.vectors], ["Tags", truth.tags]]) {
				assert(n(facts[label]) === value, `${label}: the modal says ${facts[label]}, the server ${value}`);
			}
			assert(truth.vectors > 0 && !/null/.test(facts.Model ?? ""), `model shown as ${facts.Model}`);
			assert(!(await page.$$eval(".vaultheat-status-modal button", (b) => b.map((x) => x.textContent))).includes("Start sidecar"), "offers to start a sidecar while connected");
			await shot("status-dark");
			await page.keyboard.press("Escape");
		});

		await check("the same keys in the sidebar and in search: Alt+Enter links, Ctrl+Shift+Enter explains", async () => {
			await page.evaluate((p) => window.vh.openNote(p), noteA);
			await page.waitForSelector(".vaultheat-row", { timeout: 30000 });
			await page.waitForFunction(() => !document.querySelector(".vaultheat-related.is-updating"), null, { timeout: 30000 });
			const before = await page.evaluate(() => window.vh.editorText());
			await page.locator(".vaultheat-row").first().focus();
			await page.keyboard.press("Alt+Enter");
			const afterSidebar = await page.evaluate(() => window.vh.editorText());
			assert(afterSidebar.length > before.length && /\[\[[^\]]+\]\]/.test(afterSidebar.slice(0, afterSidebar.length)), "Alt+Enter in the sidebar inserted no link");
			await page.locator(".vaultheat-row").first().focus();
			await page.keyboard.press("Control+Shift+Enter");
			await page.waitForSelector(".vaultheat-explain-modal", { timeout: 10000 });
			await page.keyboard.press("Escape");
			await page.evaluate(() => window.vh.command("vaultheat:semantic-search"));
			await page.waitForSelector(".vaultheat-search-modal .prompt-input");
			await page.keyboard.type("compost", { delay: 5 });
			await page.waitForSelector(".vaultheat-suggestion", { timeout: 30000 });
			await page.keyboard.press("Alt+Enter");
			const afterSearch = await page.evaluate(() => window.vh.editorText());
			assert(afterSearch.length > afterSidebar.length, "Alt+Enter in search inserted no link");
			await page.evaluate(() => window.vh.command("vaultheat:semantic-search"));
			await page.waitForSelector(".vaultheat-search-modal .prompt-input");
			await page.keyboard.type("compost", { delay: 5 });
			await page.waitForSelector(".vaultheat-suggestion", { timeout: 30000 });
			await page.keyboard.press("Control+Shift+Enter");
			await page.waitForSelector(".vaultheat-explain-modal", { timeout: 10000 });
			await page.keyboard.press("Escape");
			// Closing the explanation returns to the search, as typed.
			await page.waitForSelector(".vaultheat-search-modal .prompt-input", { timeout: 10000 });
			assert((await page.locator(".vaultheat-search-modal .prompt-input").inputValue()) === "compost", "the search was not restored");
			await page.keyboard.press("Escape");
		});

		await check("honest scores: a mostly-nonsense query reads weak, and the threshold hides it", async () => {
			const query = "compost xyzzy qwertyuiop zork";
			let hits = (await (await fetch(`${server.url}/v1/search`, { method: "POST", headers: { Authorization: `Bearer ${server.token}`, "content-type": "application/json" }, body: JSON.stringify({ query, top: 20 }) })).json()).results;
			const labelled = hits.length > 0 && typeof hits[0].relevance === "number";
			const search = async () => {
				await page.evaluate(() => window.vh.command("vaultheat:semantic-search"));
				await page.waitForSelector(".vaultheat-search-modal .prompt-input");
				const before = page_.requests.length;
				await page.keyboard.type(query, { delay: 5 });
				// on a loaded machine an answer for a prefix of the query can still be on screen:
				// wait for the answer to the whole query, then for it to render
				await waitFor(
					async () => page_.requests.slice(before).some((r) => r.path === "/v1/search" && r.body?.query === query && r.response !== undefined) || null,
					30000,
					"the answer to the whole query",
					100,
				);
				await page.waitForTimeout(500);
				return page.$$eval(".vaultheat-suggestion", (els) => els.map((e) => ({ path: e.getAttribute("data-path"), label: e.getAttribute("data-relevance"), score: Number(e.getAttribute("data-score")), value: Number(e.querySelector(".vaultheat-score-value")?.textContent) })));
			};
			const all = await search();
			await page.keyboard.press("Escape");
			// the answer the modal was sent (asking again could read a newer index generation:
			// the previous check's Alt+Enter edited a note, which the sidecar re-indexes)
			const sent = page_.requests.filter((r) => r.path === "/v1/search" && r.body?.query === query && r.response?.results).at(-1);
			if (sent) hits = sent.response.results;
			if (labelled) {
				// The bar shows the absolute relevance, not the relative score that tops out at 1.
				const top = hits[0];
				const row = all.find((r) => r.path === top.path);
				assert(row && Math.abs(row.value - top.relevance) < 0.006, `row shows ${row?.value}, relevance is ${top.relevance}`);
				assert(top.relevance < top.score, `top hit: score ${top.score}, relevance ${top.relevance}`);
				await page.evaluate(() => window.vh.saveSettings({ threshold: "good" }));
				const kept = await search();
				const weakShownBefore = all.filter((r) => r.label === "weak").length;
				assert(weakShownBefore > 0, "no weak match to hide for this query");
				assert(kept.every((r) => r.label !== "weak"), `weak matches shown under "Hide weak matches": ${JSON.stringify(kept)}`);
				const hint = await page.locator(".vaultheat-search-hint, .suggestion-empty").allInnerTexts();
				assert(hint.some((t) => /weak match(es)? hidden/.test(t)), `no "hidden" note: ${hint.join(" | ")}`);
				log(`"${query}": top relevance ${top.relevance} (${top.relevance_label}) vs relative score ${top.score}; ${weakShownBefore} weak rows hidden by the threshold`);
				await page.keyboard.press("Escape");
				await page.evaluate(() => window.vh.saveSettings({ threshold: "all" }));
			} else {
				// This server sends no relevance yet: every score bar must say it is relative.
				await search();
				const marks = await page.$$eval(".vaultheat-suggestion .vaultheat-score", (els) => els.map((e) => e.classList.contains("is-relative")));
				assert(marks.every(Boolean), "relative scores are not marked as relative");
				log(`this sidecar sends no relevance yet: ${marks.length} relative scores shown and labelled as such`);
				await page.keyboard.press("Escape");
			}
		});

		if (!MOCK) {
			// #27: a PDF copied into the vault is indexed page by page; its result opens at the page.
			await check("a PDF result opens at its page: the row says p. 2 and Obsidian is asked for file.pdf#page=2", async () => {
				const pdf = "E2E/Bicycle manual.pdf";
				const pages = [
					// each page over 200 characters, so no page is joined to the other (core/derived.py)
					["Bicycle manual, chapter one: the frame.", "Check the frame for cracks near the welds every spring.", "Measure the seat height against your inside leg.", "Tighten the headset until the fork turns without play.", "Pump the tyres to the pressure printed on their sidewalls."],
					["Chapter two: the drivetrain.", "Oil the bicycle chain after every ride in the rain.", "Wipe off the excess oil with a rag.", "Replace the chain when it has stretched by half a percent.", "Clean the cassette with a stiff brush and degreaser.", "Check the derailleur hanger is straight."],
				];
				mkdirSync(join(vault, "E2E"), { recursive: true });
				writeFileSync(join(vault, pdf), buildPdf(pages));
				await page.evaluate((p) => window.vh.fileAppeared(p), pdf);
				const query = "oil the bicycle chain after a ride in the rain";
				const top = await waitFor(
					async () => {
						const res = await fetch(`${server.url}/v1/search`, { method: "POST", headers: { Authorization: `Bearer ${server.token}`, "content-type": "application/json" }, body: JSON.stringify({ query, top: 5 }) });
						const hit = (await res.json()).results?.[0];
						return hit?.path === pdf ? hit : null;
					},
					120000,
					`the sidecar to index ${pdf} (forwarded as a create event)`,
					500,
				);
				assert(top.page === 2 && top.page_end === 2, `the server puts the phrase on page ${top.page}-${top.page_end}`);
				await page.evaluate(() => window.vh.command("vaultheat:semantic-search"));
				await page.waitForSelector(".vaultheat-search-modal .prompt-input");
				await page.keyboard.type(query, { delay: 5 });
				const items = await waitFor(
					async () => {
						const list = await page.$$eval(".vaultheat-suggestion", (els) => els.map((e) => ({ path: e.getAttribute("data-path"), page: e.getAttribute("data-page"), where: e.querySelector(".vaultheat-suggestion-path")?.textContent ?? "" })));
						return list.some((i) => i.path === pdf) ? list : null;
					},
					30000,
					`${pdf} in the search results`,
				);
				const index = items.findIndex((i) => i.path === pdf);
				assert(items[index].page === "2" && /\bp\. 2$/.test(items[index].where), `the row says page ${items[index].page}, "${items[index].where}"`);
				for (let i = 0; i < index; i++) await page.keyboard.press("ArrowDown");
				await page.keyboard.press("Enter");
				const opened = await waitFor(async () => {
					const v = await page.evaluate(() => window.vh.openedView());
					return v.file === pdf ? v : null;
				}, 5000, `${pdf} to open`);
				assert(opened.links.at(-1) === `${pdf}#page=2`, `openLinkText got ${JSON.stringify(opened.links.at(-1))}`);
				assert(opened.type === "pdf" && opened.eState?.subpath === "#page=2", `the PDF view got ${JSON.stringify(opened)}`);
				log(`PDF result: ${pdf} p. ${top.page}, opened with openLinkText("${opened.links.at(-1)}") -> eState ${JSON.stringify(opened.eState)}`);
				await page.evaluate((p) => window.vh.openNote(p), noteA);
			});

			await check("two vaults at once: a second sidecar on its own port, its index outside the vault", async () => {
				const second = copyVault("personal");
				const outside = join(second.tmp, "index-outside");
				mkdirSync(outside, { recursive: true });
				const serverB = await startRealServer(second.vault, { indexDir: outside });
				const pageServerB = await startPageServer(second.vault, [outside]);
				const pageB = await browser.newPage({ viewport: { width: 1280, height: 760 }, deviceScaleFactor: 1 });
				try {
					assert(new URL(serverB.url).port !== new URL(server.url).port, "both sidecars on one port");
					const ids = await Promise.all([server, serverB].map(async (s) => (await (await fetch(`${s.url}/v1/health`)).json()).vault_id));
					assert(ids[0] === vaultIdOf(vault) && ids[1] === vaultIdOf(second.vault), `vault ids ${ids} do not match the vaults`);
					assert(!existsSync(join(second.vault, ".vaultheat")), "the index was written into the vault");
					await pageB.goto(pageServerB.url);
					const filesB = Object.fromEntries(second.notes.map((p) => [p, readFileSync(join(second.vault, p), "utf8")]));
					const real = realpathSync(second.vault);
					await pageB.evaluate((o) => window.vh.boot(o), { files: filesB, hidden: {}, basePath: second.vault, manifest, theme: "dark", hashes: { [real]: createHash("sha256").update(real, "utf8").digest("hex") } });
					await pageB.evaluate((dir) => window.vh.setPluginData({ indexDir: dir, setupDone: true, autoStart: false }), outside);
					await pageB.evaluate(({ code, manifest }) => window.vh.loadPlugin(code, manifest), { code: pluginCode(), manifest });
					const textB = await waitFor(async () => {
						const t = await pageB.locator(".vaultheat-statusbar-text").innerText();
						return /^[\d,]+ notes?/.test(t) ? t : null;
					}, INDEX_TIMEOUT_MS, "vault B's status bar to show its notes", 250);
					const usedB = pageServerB.requests.filter((r) => r.path === "/v1/status").length;
					assert(usedB > 0, "vault B's plugin never asked its sidecar");
					assert((await statusText()) !== "Another vault's sidecar", "vault A lost its sidecar");
					log(`vault B: ${textB} from ${serverB.url} (index in ${outside})`);
				} finally {
					await pageB.close();
					pageServerB.close();
					await serverB.close();
					rmSync(second.tmp, { recursive: true, force: true });
				}
			});
		}

		// Obsidian quits (the page goes, and with it the plugin, never unloaded) and opens again:
		// the new plugin finds the sidecar through the discovery file, adopts it, and its "Stop
		// sidecar" reaches that process over POST /v1/shutdown.
		const relaunch = async (data, boot = {}) => {
			await page.reload();
			const hidden = existsSync(join(vault, ".vaultheat", "server.json")) ? { ".vaultheat/server.json": readFileSync(join(vault, ".vaultheat", "server.json"), "utf8") } : {};
			const filesNow = Object.fromEntries(listFiles(vault).filter((p) => p.endsWith(".md")).map((p) => [p, read(p)]));
			await page.evaluate((o) => window.vh.boot(o), { files: filesNow, hidden, basePath: vault, manifest, theme: "dark", hashes, ...boot });
			await page.evaluate((p) => window.vh.openNote(p), noteA);
			await page.evaluate((d) => window.vh.setPluginData(d), data);
			await page.evaluate(({ code, manifest }) => window.vh.loadPlugin(code, manifest), { code: pluginCode(), manifest });
		};

		if (!MOCK) {
			await check("a relaunched Obsidian adopts the running sidecar, and Stop sidecar ends it cleanly over the API", async () => {
				await relaunch({ autoStart: false, setupDone: true });
				await waitFor(async () => /^[\d,]+ notes?$/.test(await statusText()), 60000, "the relaunched plugin to connect", 250);
				const before = page_.requests.length;
				assert(await page.evaluate(() => window.vh.command("vaultheat:stop-sidecar")), "no Stop sidecar command for the adopted sidecar");
				const exit = await waitFor(() => server.exited(), 20000, "the sidecar to exit", 100);
				assert(exit.code === 0, `the sidecar exited with ${exit.code} (${exit.signal})`);
				assert(!existsSync(server.discoveryPath), "the discovery file is still there");
				const shutdown = page_.requests.slice(before).find((r) => r.path === "/v1/shutdown");
				assert(shutdown?.status === 200, `POST /v1/shutdown answered ${shutdown?.status}`);
				assert((await page.evaluate(() => window.vh.spawned())).length === 0, "the plugin started a sidecar");
				log(`adopted sidecar stopped: exit ${exit.code}, discovery file removed`);
			});
		}

		await check("a stopped sidecar shows what to do", async () => {
			await server.close();
			await page.evaluate(() => window.vh.command("vaultheat:open-related-notes"));
			await page.locator('.nav-action-button[aria-label="Refresh"]').click();
			await page.waitForSelector('.vaultheat-state-title:text-is("The sidecar is not running")', { timeout: 30000 });
			await waitFor(async () => (await statusText()) === "Offline", 30000, "the status bar to say Offline");
			await page.evaluate(() => window.vh.openNote("Home.md").catch(() => undefined));
			await page.waitForTimeout(300);
			await shot("sidebar-offline-dark");
		});

		// A phone: Obsidian mobile (no Node), a phone-sized viewport, the vault synced over.
		// Each phone has its own page server, so its proxy log holds only the phone's requests.
		const phoneBoot = async (extra, data) => {
			const served = await startPageServer(vault, [], join(installed.folder, "styles.css"));
			const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
			phone.served = served;
			phone.on("pageerror", (e) => consoleErrors.push(`phone: ${e}`));
			await phone.goto(served.url);
			const filesNow = Object.fromEntries(listFiles(vault).filter((p) => p.endsWith(".md")).map((p) => [p, read(p)]));
			// Synced notes keep old modified times; one listed note was edited on the phone since.
			const mtimes = Object.fromEntries(Object.keys(filesNow).map((p) => [p, 1000]));
			await phone.evaluate((o) => window.vh.boot(o), { files: filesNow, hidden: {}, basePath: "", manifest, theme: "dark", mobile: true, mtimes, ...extra });
			await phone.evaluate((p) => window.vh.openNote(p), noteA);
			await phone.evaluate((d) => window.vh.setPluginData(d), { setupDone: true, ...data });
			await phone.evaluate(({ code, manifest }) => window.vh.loadPlugin(code, manifest), { code: pluginCode(), manifest });
			await phone.evaluate(() => window.vh.command("vaultheat:open-related-notes"));
			return phone;
		};
		const phoneShot = async (phone, name) => {
			await phone.evaluate(() => window.vh.reading(true));
			await phone.waitForTimeout(350);
			await phone.screenshot({ path: join(shotsDir, `${name}.png`) });
		};

		await check("on a phone without a server: the sidebar shows the snapshot with its time and what changed since; main.js requires no Node module", async () => {
			assert(snapshotText, "no snapshot from the desktop check");
			const doc = JSON.parse(snapshotText);
			doc.paths = unshare(doc);
			const entry = doc.notes.find((n) => doc.paths[n[0]] === noteA);
			const edited = doc.paths[entry[3][0][0]];
			const phone = await phoneBoot({ hidden: { [SNAPSHOT]: snapshotText }, mtimes: { ...Object.fromEntries(notes.map((p) => [p, 1000])), [edited]: Date.now() + 60000 } }, {});
			try {
				await phone.waitForSelector(".vaultheat-snapshot-banner", { timeout: 30000 });
				const banner = await phone.locator(".vaultheat-snapshot-banner").innerText();
				assert(/From the snapshot, as of .+\d\d:\d\d/.test(banner), `banner: ${banner}`);
				assert(banner.includes("1 listed note changed since") && banner.includes("No server on this device"), `banner: ${banner}`);
				const rows = await phone.$$eval(".vaultheat-row", (r) => r.map((x) => x.getAttribute("data-path")));
				const listed = entry[3].map((h) => doc.paths[h[0]]);
				assert(JSON.stringify(rows) === JSON.stringify(listed), `rows ${rows.join(", ")} vs snapshot ${listed.join(", ")}`);
				const changed = await phone.$$eval(".vaultheat-row.is-changed", (r) => r.map((x) => x.getAttribute("data-path")));
				assert(JSON.stringify(changed) === JSON.stringify([edited]), `marked changed: ${changed}`);
				const required = await phone.evaluate(() => window.vh.required);
				assert(required.length === 0, `main.js asked for ${required.join(", ")} on the phone`);
				assert(phone.served.requests.length === 0, `the phone sent ${phone.served.requests.length} requests with no server set`);
				await phone.evaluate(() => window.vh.command("vaultheat:semantic-search"));
				await phone.waitForSelector('.vaultheat-search-modal .vaultheat-state-title:text-is("No server for this device")', { timeout: 10000 });
				await phone.keyboard.press("Escape");
				await phoneShot(phone, "phone-snapshot-dark");
				log(`phone: ${rows.length} related notes from the snapshot for ${noteA}; "${banner.split("\n")[0]}"`);
			} finally {
				await phone.close();
				phone.served.close();
			}
		});

		if (!MOCK) {
			await check("on a phone with a remote-mode sidecar (serve --host 127.0.0.2 --allow-remote): live related notes and search, token and the app's Origin", async () => {
				const remote = await startRealServer(vault, { extraArgs: ["--host", "127.0.0.2", "--allow-remote"] });
				let phone = null;
				try {
					assert(new URL(remote.url).hostname === "127.0.0.2", `remote server at ${remote.url}`);
					const noToken = await fetch(`${remote.url}/v1/health`);
					assert(noToken.status === 401, `health without the token: ${noToken.status}`);
					phone = await phoneBoot({ origin: "capacitor://localhost" }, { serverUrl: remote.url, token: remote.token });
					await phone.waitForSelector(".vaultheat-row", { timeout: 60000 });
					assert((await phone.locator(".vaultheat-snapshot-banner").count()) === 0, "the snapshot banner is shown with a server online");
					await phone.evaluate(() => window.vh.command("vaultheat:semantic-search"));
					await phone.waitForSelector(".vaultheat-search-modal .prompt-input");
					await phone.keyboard.type("compost", { delay: 5 });
					await phone.waitForSelector(".vaultheat-suggestion", { timeout: 30000 });
					await phone.keyboard.press("Escape");
					const sent = phone.served.requests;
					assert(sent.length > 0 && sent.every((r) => r.status === 200), `answers: ${sent.map((r) => `${r.path} ${r.status}`).join(", ")}`);
					assert(sent.some((r) => r.path === "/v1/related") && sent.some((r) => r.path === "/v1/search"), `paths: ${[...new Set(sent.map((r) => r.path))]}`);
					assert(!sent.some((r) => r.path === "/v1/related/batch"), "the phone wrote a snapshot");
					const required = await phone.evaluate(() => window.vh.required);
					assert(required.length === 0, `main.js asked for ${required.join(", ")} on the phone`);
					await phoneShot(phone, "phone-remote-dark");
					log(`phone: ${sent.length} requests to ${remote.url}, all 200`);
				} finally {
					await phone?.close();
					phone?.served.close();
					await remote.close();
				}
			});
		}

		await check("first run: the setup card says what was found, and nothing starts before the user agrees", async () => {
			const command = "/home/e2e/.local/bin/vaultheat";
			await relaunch({}, { installed: { command, version: repoManifest.version } });
			await page.evaluate(() => window.vh.command("vaultheat:open-related-notes"));
			await page.waitForSelector('.vaultheat-state-title:text-is("Start vaultheat for this vault?")', { timeout: 30000 });
			const detail = await page.locator(".vaultheat-state-detail").first().innerText();
			assert(detail.includes(`Found vaultheat ${repoManifest.version} at ${command}`), `the card says: ${detail}`);
			const buttons = await page.locator(".vaultheat-state-actions button").allInnerTexts();
			assert(JSON.stringify(buttons) === JSON.stringify(["Start", "Always start automatically"]), `buttons: ${buttons}`);
			await page.waitForTimeout(1500);
			assert((await page.evaluate(() => window.vh.spawned())).length === 0, "a sidecar was started before the user agreed");
			assert((await statusText()) === "Set up", `status bar: ${await statusText()}`);
			await page.evaluate(() => window.vh.openNote("Garden/Raised Beds.md").catch(() => undefined));
			await page.waitForTimeout(300);
			await shot("setup-dark");
		});

		await check("no errors in the page", async () => {
			const pageErrors = await page.evaluate(() => window.vh.errors);
			const unexpected = [...pageErrors, ...consoleErrors].filter((e) => !/ERR_CONNECTION_REFUSED|Failed to load resource/.test(e));
			assert(unexpected.length === 0, unexpected.join("\n"));
		});
	} finally {
		await browser.close();
		page_.close();
		await server.close().catch(() => undefined);
		if (KEEP) log(`kept ${tmp}`);
		else rmSync(tmp, { recursive: true, force: true });
	}

	if (COPY_SHOTS) {
		mkdirSync(COPY_SHOTS, { recursive: true });
		for (const f of readdirSync(shotsDir)) cpSync(join(shotsDir, f), join(COPY_SHOTS, f));
		log(`screenshots copied to ${COPY_SHOTS}`);
	} else log(`screenshots in ${shotsDir}`);
	const passed = results.filter((r) => r.ok).length;
	const failed = results.length - passed;
	console.log(`e2e: ${passed} passed, ${failed} failed`);
	process.exit(failed === 0 ? 0 : 1);
}

main().catch((err) => die(err.stack ?? String(err)));
