#!/usr/bin/env node
// Runs `vitest run` and ends with the plain "N passed, N failed" line that CI reads, taken from
// vitest's JSON report (so it counts tests, not files). Exit status is vitest's.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "vaultheat-vitest-"));
const report = join(dir, "report.json");
const args = ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(2)];
const run = spawnSync("npx", args, { stdio: "inherit" });
let passed = 0;
let failed = 0;
let skipped = 0;
try {
	const data = JSON.parse(readFileSync(report, "utf8"));
	passed = data.numPassedTests ?? 0;
	failed = (data.numFailedTests ?? 0) + (data.numRuntimeErrorTestSuites ?? 0);
	skipped = (data.numPendingTests ?? 0) + (data.numTodoTests ?? 0);
	if (data.numFailedTestSuites && failed === 0) failed = data.numFailedTestSuites;
} catch {
	failed = Math.max(failed, 1);
}
rmSync(dir, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(run.status ?? 1);
