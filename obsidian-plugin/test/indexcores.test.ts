import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, loadSettings } from "../src/settings";
import { sidecarArgv } from "../src/sidecar";

const base = { command: "vaultheat", pythonPath: "", vaultPath: "/v", port: null };

describe("use at most N cores while indexing", () => {
	it("passes --index-cpus only when set", () => {
		expect(sidecarArgv({ ...base, indexCores: 2 })).toEqual([
			"vaultheat", "serve", "--vault", "/v", "--port", "0", "--index-cpus", "2",
		]);
		expect(sidecarArgv({ ...base, indexCores: 0 })).not.toContain("--index-cpus");
		expect(sidecarArgv(base)).not.toContain("--index-cpus");
	});
	it("defaults to 0 and keeps the setting in range", () => {
		expect(DEFAULT_SETTINGS.indexCores).toBe(0);
		expect(loadSettings({ indexCores: 3 }).indexCores).toBe(3);
		expect(loadSettings({ indexCores: -4 }).indexCores).toBeGreaterThanOrEqual(0);
	});
});
