// eslint-plugin-obsidianmd's recommended set (Obsidian's review guidelines + typescript-eslint
// type-checked rules) over the plugin sources. Tests, the e2e harness and build scripts run in
// Node or a test page, not in Obsidian, so they are linted by tsc (tests) or not at all.
import { defineConfig } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";

export default defineConfig([
	{
		ignores: ["node_modules/**", "main.js", "test/**", "e2e/**", "scripts/**", "*.config.*", "package-lock.json"],
	},
	...obsidianmd.configs.recommended,
	{
		languageOptions: {
			parserOptions: {
				projectService: true,
				tsconfigRootDir: import.meta.dirname,
			},
		},
		rules: {
			"obsidianmd/ui/sentence-case": ["warn", { brands: ["Obsidian"] }],
			// getSettingDefinitions() needs Obsidian 1.13; minAppVersion is lower, so display() stays.
			"obsidianmd/settings-tab/prefer-setting-definitions": "off",
		},
	},
]);
