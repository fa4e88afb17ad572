import { Plugin } from "obsidian";
import { afterEach, describe, expect, it } from "vitest";
import { VaultheatSettingTab } from "../../src/views/settings-tab";
import { statusDoc } from "../helpers";
import { makeWorld, text, type World } from "../world";

let world: World;
afterEach(() => world?.services.dispose());

function render(canSpawn = true, extra: { obsidian?: string[]; sidecarExclude?: string[] } = {}) {
	world = makeWorld({ settings: { excluded: ["Templates"] } });
	if (extra.sidecarExclude) {
		const exclude = extra.sidecarExclude;
		world.services.status.update((s) => ({ ...s, index: { ...s.index, status: { ...statusDoc(), exclude } } }));
	}
	const plugin = new Plugin(world.app, { id: "vaultheat", name: "Vaultheat", version: "0.1.0", minAppVersion: "1.7.2", description: "", author: "" });
	const ctx = world.services.viewContext();
	const tab = new VaultheatSettingTab(world.app, plugin, {
		settings: ctx.settings,
		saveSettings: ctx.saveSettings,
		fix: ctx.fix,
		canSpawn,
		status: world.services.status,
		obsidianExcludes: () => extra.obsidian ?? [],
	});
	tab.display();
	const rows = [...tab.containerEl.querySelectorAll(".setting-item")];
	const row = (name: string) => rows.find((r) => text(r.querySelector(".setting-item-name")) === name)!;
	return { tab, rows, row };
}

describe("settings tab", () => {
	it("has every setting with a one-line description, under headings", () => {
		const { rows } = render();
		const headings = rows.filter((r) => r.classList.contains("setting-item-heading")).map((r) => text(r.querySelector(".setting-item-name")));
		expect(headings).toEqual(["Connection", "Sidecar", "Results", "Model", "Excluded from the index"]);
		const settings = rows.filter((r) => !r.classList.contains("setting-item-heading"));
		expect(settings.map((r) => text(r.querySelector(".setting-item-name")))).toEqual([
			"Sidecar address",
			"Token",
			"Keep a snapshot for mobile",
			"Start automatically",
			"Command",
			"Python path",
			"Find the sidecar",
			"Index folder",
			"Cores while indexing",
			"Result count",
			"Typing pause",
			"Hide weak matches",
			"Unlinked only by default",
			"Rerank results",
			"Hidden suggestions",
			"Embedding model",
			"Excluded folders and patterns",
		]);
		for (const r of settings) {
			const desc = text(r.querySelector(".setting-item-description"));
			expect(desc.length).toBeGreaterThan(10);
			expect(desc).not.toContain("\n");
			expect(desc.charAt(0)).toBe(desc.charAt(0).toUpperCase());
		}
	});

	it("says what goes over the network, and warns about plain http:// to a public address", () => {
		const { tab, row } = render();
		expect(text(tab.containerEl.querySelector(".vaultheat-network-note"))).toContain("127.0.0.1");
		const warning = () => row("Sidecar address").querySelector(".vaultheat-address-warning") as HTMLElement;
		const type = (value: string) => {
			const input = row("Sidecar address").querySelector("input") as HTMLInputElement;
			input.value = value;
			input.dispatchEvent(new Event("input"));
		};
		expect(warning().classList.contains("vaultheat-hidden")).toBe(true);
		type("http://notes.example.com:51764");
		expect(warning().classList.contains("vaultheat-hidden")).toBe(false);
		expect(text(warning())).toContain("unencrypted");
		for (const ok of ["https://notes.example.com:51764", "http://127.0.0.1:5000", "http://192.168.1.20:51764", "http://100.101.102.103:51764", ""]) {
			type(ok);
			expect(warning().classList.contains("vaultheat-hidden"), ok).toBe(true);
		}
	});

	it("saves changes as they are made", async () => {
		const { row } = render();
		const input = (name: string) => row(name).querySelector("input, textarea, select") as HTMLInputElement;
		input("Sidecar address").value = " http://127.0.0.1:5000 ";
		input("Sidecar address").dispatchEvent(new Event("input"));
		input("Token").value = "abc";
		input("Token").dispatchEvent(new Event("input"));
		(row("Start automatically").querySelector(".checkbox-container") as HTMLElement).click();
		input("Result count").value = "25";
		input("Result count").dispatchEvent(new Event("input"));
		input("Rerank results").value = "off";
		input("Rerank results").dispatchEvent(new Event("change"));
		input("Excluded folders and patterns").value = "Templates\n\nArchive/**";
		input("Excluded folders and patterns").dispatchEvent(new Event("change"));
		await Promise.resolve();
		expect(world.settings()).toMatchObject({
			serverUrl: "http://127.0.0.1:5000",
			token: "abc",
			autoStart: true, // off by default; the click turned it on
			resultCount: 25,
			rerank: "off",
			excluded: ["Templates", "Archive/**"],
		});
		expect(input("Token").type).toBe("password");
		expect(input("Excluded folders and patterns").value).toBe("Templates\n\nArchive/**");
	});

	it("shows slider values, allows the whole range, and saves the threshold and index folder", async () => {
		const { row } = render();
		const slider = row("Typing pause").querySelector<HTMLInputElement>("input[type=range]")!;
		expect(slider.max).toBe("2000");
		// Obsidian 1.13 shows the value inline; the plugin gives it the format
		expect(text(row("Typing pause").querySelector(".slider-value"))).toBe("500 ms");
		slider.value = "1250";
		slider.dispatchEvent(new Event("input"));
		expect(text(row("Typing pause").querySelector(".slider-value"))).toBe("1250 ms");
		expect(text(row("Result count").querySelector(".slider-value"))).toBe("10");
		expect(row("Result count").querySelector(".vaultheat-slider-value")).toBeNull();
		const threshold = row("Hide weak matches").querySelector("select")!;
		threshold.value = "good";
		threshold.dispatchEvent(new Event("change"));
		const dir = row("Index folder").querySelector("input")!;
		dir.value = " /home/me/idx ";
		dir.dispatchEvent(new Event("input"));
		await Promise.resolve();
		expect(world.settings()).toMatchObject({ threshold: "good", indexDir: "/home/me/idx", debounceMs: 1250 });
	});

	it("the cores slider reads 0 as all and saves the budget passed to serve", async () => {
		const { row } = render();
		const slider = row("Cores while indexing").querySelector<HTMLInputElement>("input[type=range]")!;
		expect(text(row("Cores while indexing").querySelector(".slider-value"))).toBe("all");
		slider.value = "2";
		slider.dispatchEvent(new Event("input"));
		await Promise.resolve();
		expect(text(row("Cores while indexing").querySelector(".slider-value"))).toBe("2");
		expect(world.settings()).toMatchObject({ indexCores: 2 });
	});

	it("shows the sidecar's exclusions and Obsidian's Excluded files in one place, and picks a folder", async () => {
		const { tab, row } = render(true, { obsidian: ["Archive/"], sidecarExclude: ["Templates/**", "Private/**"] });
		const rows = [...tab.containerEl.querySelectorAll(".vaultheat-exclusions-row")].map((r) => text(r));
		expect(rows).toEqual([
			"In effect in the sidecar's index: Templates/**, Private/**",
			"Obsidian's Excluded files (Files and links; the sidecar honours them too): Archive/",
		]);
		const add = [...row("Excluded folders and patterns").querySelectorAll("button")].find((b) => text(b) === "Add folder…")!;
		add.click();
		const options = [...document.querySelectorAll<HTMLElement>(".vaultheat-folder-option")];
		expect(options.map((o) => text(o))).toContain("Projects");
		options.find((o) => text(o) === "Projects")!.click();
		await Promise.resolve();
		expect(world.settings().excluded).toEqual(["Templates", "Projects/"]);
		expect(row("Excluded folders and patterns").querySelector("textarea")!.value).toBe("Templates\nProjects/");
	});

	it("reconnects once after the address stops changing", async () => {
		const { row } = render();
		const field = row("Sidecar address").querySelector("input")!;
		for (const v of ["h", "ht", "http://127.0.0.1:9"]) {
			field.value = v;
			field.dispatchEvent(new Event("input"));
		}
		await Promise.resolve();
		expect(world.transport.requests).toHaveLength(0);
		await world.clock.advance(800);
		expect(world.transport.requests.map((r) => r.req.url)).toEqual(["http://127.0.0.1:9/v1/health", "http://127.0.0.1:9/v1/status"]);
	});

	it("disables auto-start where the sidecar cannot be spawned", () => {
		const { row } = render(false);
		expect(row("Start automatically").querySelector(".checkbox-container")?.classList.contains("is-disabled")).toBe(true);
	});
});
