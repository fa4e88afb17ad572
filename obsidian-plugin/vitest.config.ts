import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
	resolve: {
		alias: {
			obsidian: fileURLToPath(new URL("./test/stubs/obsidian.ts", import.meta.url)),
		},
	},
	test: {
		environment: "happy-dom",
		include: ["test/**/*.test.ts"],
		testTimeout: 10000,
	},
});
