#!/usr/bin/env node
// The repo root's manifest.json is the one Obsidian (and the community-plugin review) reads.
// obsidian-plugin/ keeps a copy so the folder is a complete, installable plugin (main.js,
// manifest.json, styles.css side by side) and so eslint-plugin-obsidianmd, which reads
// ./manifest.json, checks API use against the real minAppVersion. `--check` fails on drift.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const rootManifest = resolve(here, "../../manifest.json");
const copy = resolve(here, "../manifest.json");
const versions = resolve(here, "../../versions.json");
const pkgPath = resolve(here, "../package.json");
const lockPath = resolve(here, "../package-lock.json");

const canonical = readFileSync(rootManifest, "utf8");
const manifest = JSON.parse(canonical);
const check = process.argv.includes("--check");
const problems = [];

let current = "";
try {
	current = readFileSync(copy, "utf8");
} catch {
	current = "";
}
if (current !== canonical) {
	if (check) problems.push("obsidian-plugin/manifest.json differs from ../manifest.json");
	else writeFileSync(copy, canonical);
}

const versionMap = JSON.parse(readFileSync(versions, "utf8"));
if (versionMap[manifest.version] !== manifest.minAppVersion) {
	if (check) problems.push(`versions.json lacks "${manifest.version}": "${manifest.minAppVersion}"`);
	else {
		versionMap[manifest.version] = manifest.minAppVersion;
		writeFileSync(versions, JSON.stringify(versionMap, null, "\t") + "\n");
	}
}

const pkg = JSON.parse(readFileSync(pkgPath, "utf8"));
if (pkg.version !== manifest.version) {
	if (check) problems.push(`package.json version ${pkg.version} != manifest ${manifest.version}`);
	else {
		pkg.version = manifest.version;
		writeFileSync(pkgPath, JSON.stringify(pkg, null, 2) + "\n");
	}
}

const lock = JSON.parse(readFileSync(lockPath, "utf8"));
if (lock.version !== manifest.version || lock.packages?.[""]?.version !== manifest.version) {
	if (check) problems.push(`package-lock.json version ${lock.version} != manifest ${manifest.version}`);
	else {
		lock.version = manifest.version;
		if (lock.packages?.[""]) lock.packages[""].version = manifest.version;
		writeFileSync(lockPath, JSON.stringify(lock, null, 2) + "\n");
	}
}

if (problems.length > 0) {
	for (const p of problems) console.error(`sync-manifest: ${p}`);
	console.error("sync-manifest: run `npm run sync-manifest` in obsidian-plugin/");
	process.exit(1);
}
console.log(check ? "sync-manifest: in step" : "sync-manifest: synced");
