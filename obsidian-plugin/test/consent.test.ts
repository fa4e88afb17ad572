/**
 * Consent and lifetime (issue 24): nothing starts before the user agrees; the sidecar we start
 * is told our pid (it exits when Obsidian is gone, which does not unload plugins on quit); a
 * relaunched Obsidian adopts a running sidecar and can stop or restart it over the API.
 */
import { type FileSystemAdapter } from "obsidian";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../src/settings";
import { type SpawnFn, installedVersion, sidecarArgv } from "../src/sidecar";
import { FakeChild } from "./fake-child";
import { INSTALL_COMMAND } from "../src/state/diagnosis";
import { flush, json, relatedDoc } from "./helpers";
import { goOnline, makeWorld, openNote, openSidebar, text, type World } from "./world";

let world: World;
afterEach(() => {
	for (const m of [...(world?.app.openModals ?? [])]) m.close();
	world?.services.dispose();
});

function spawner(children: FakeChild[]): SpawnFn {
	return () => {
		const child = new FakeChild(5150, true);
		children.push(child);
		queueMicrotask(() => child.emit("spawn"));
		return child;
	};
}

const FOUND = { command: "/home/me/.local/bin/vaultheat", version: "0.1.0" };

async function firstRun(found: typeof FOUND | null) {
	const children: FakeChild[] = [];
	let finding = found;
	world = makeWorld({ withSidecar: true, settings: { setupDone: false }, detect: () => finding, spawn: spawner(children) });
	world.transport.unreachable = true;
	await goOnline(world);
	const { view } = await openSidebar(world);
	await openNote(world, "Alpha.md");
	await flush();
	const card = () => view.contentEl.querySelector(".vaultheat-state")!;
	const button = (label: string) => [...card().querySelectorAll("button")].find((b) => text(b) === label) as HTMLElement;
	return { children, view, card, button, setFinding: (f: typeof FOUND | null) => (finding = f) };
}

describe("consent: a setup card before anything starts", () => {
	it("auto-start is off until the user turns it on", () => {
		expect(DEFAULT_SETTINGS.autoStart).toBe(false);
		expect(DEFAULT_SETTINGS.setupDone).toBe(false);
	});

	it("says what was found and starts nothing until asked", async () => {
		const { card, button } = await firstRun(FOUND);
		expect(world.spawned).toEqual([]);
		expect(text(card().querySelector(".vaultheat-state-title"))).toBe("Start vaultheat for this vault?");
		const detail = text(card().querySelector(".vaultheat-state-detail"));
		expect(detail).toContain("Found vaultheat 0.1.0 at /home/me/.local/bin/vaultheat");
		expect(detail).toContain("127.0.0.1");
		expect([...card().querySelectorAll("button")].filter((b) => !b.closest(".vaultheat-command")).map((b) => text(b))).toEqual(["Start", "Always start automatically"]);
		expect(button("Start")).toBeTruthy();
		await world.clock.advance(60000);
		expect(world.spawned).toEqual([]);
		expect(world.settings().setupDone).toBe(false);
	});

	it("Start: runs it this once, with our pid, and remembers the answer", async () => {
		const { button } = await firstRun(FOUND);
		button("Start").click();
		await flush();
		expect(world.spawned).toEqual([[FOUND.command, "serve", "--vault", "/vault", "--port", "0", "--parent-pid", "4242"]]);
		expect(world.settings()).toMatchObject({ setupDone: true, autoStart: false, command: FOUND.command });
	});

	it("Always start automatically: turns auto-start on and starts", async () => {
		const { button } = await firstRun(FOUND);
		button("Always start automatically").click();
		await flush();
		expect(world.spawned).toHaveLength(1);
		expect(world.settings()).toMatchObject({ setupDone: true, autoStart: true, command: FOUND.command });
	});

	it("nothing found: the exact install command with a copy button, then look again", async () => {
		const copied: string[] = [];
		Object.defineProperty(navigator, "clipboard", { value: { writeText: async (t: string) => void copied.push(t) }, configurable: true });
		const { card, button, setFinding } = await firstRun(null);
		expect(text(card().querySelector(".vaultheat-state-title"))).toBe("Install the vaultheat sidecar");
		expect(text(card().querySelector(".vaultheat-command code"))).toBe(INSTALL_COMMAND);
		// says where it comes from and what it needs, not only the command
		expect(text(card())).toMatch(/Python 3\.11.*README, "Install it for your vault".*clone of that repository.*pipx/);
		card().querySelector<HTMLElement>('.vaultheat-command [aria-label="Copy command"]')!.click();
		await flush();
		expect(copied).toEqual([INSTALL_COMMAND]);
		expect(world.spawned).toEqual([]);
		setFinding(FOUND);
		button("Look again").click();
		await flush();
		expect(text(card().querySelector(".vaultheat-state-title"))).toBe("Start vaultheat for this vault?");
	});

	it("a sidecar already running (started in a terminal) is used without asking", async () => {
		world = makeWorld({ withSidecar: true, settings: { setupDone: false }, detect: () => FOUND });
		world.transport.on("POST /v1/related", () => json(200, relatedDoc("Alpha.md", [])));
		await goOnline(world);
		expect(world.services.status.get().connection.phase).toBe("online");
		expect(world.spawned).toEqual([]);
	});
});

describe("lifetime", () => {
	it("passes our pid as --parent-pid", () => {
		expect(sidecarArgv({ command: "vaultheat", pythonPath: "", vaultPath: "/v", port: null, parentPid: 77 })).toEqual(["vaultheat", "serve", "--vault", "/v", "--port", "0", "--parent-pid", "77"]);
	});

	it("reads the installed version from the environment's metadata, without running anything", () => {
		const dirs: Record<string, string[]> = {
			"/home/me/.local/share/pipx/venvs/vaultheat/lib": ["python3.11"],
			"/home/me/.local/share/pipx/venvs/vaultheat/lib/python3.11/site-packages": ["numpy-2.0.0.dist-info", "vaultheat-0.1.0.dist-info", "vaultheat"],
		};
		const fs = {
			realpath: (p: string) => (p === "/home/me/.local/bin/vaultheat" ? "/home/me/.local/share/pipx/venvs/vaultheat/bin/vaultheat" : p),
			readdir: (p: string) => dirs[p] ?? [],
		};
		expect(installedVersion("/home/me/.local/bin/vaultheat", fs, "linux")).toBe("0.1.0");
		expect(installedVersion("/usr/bin/vaultheat", fs, "linux")).toBeNull();
	});

	it("quitting Obsidian stops the sidecar we started (the app does not call onunload)", async () => {
		const children: FakeChild[] = [];
		world = makeWorld({ withSidecar: true, spawn: spawner(children) });
		world.transport.unreachable = true;
		await goOnline(world);
		await world.services.connection.startSidecar();
		expect(children).toHaveLength(1);
		await world.services.quit();
		expect(children[0]!.signals).toEqual(["SIGTERM"]);
	});

	it("adopts a running sidecar found through discovery; Stop asks it to shut down (token sent)", async () => {
		world = makeWorld({ withSidecar: true, settings: { autoStart: true } });
		(world.app.vault.adapter as FileSystemAdapter).hidden.set(".vaultheat/server.json", JSON.stringify({ url: "http://127.0.0.1:40001", token: "tok", pid: 999 }));
		world.transport.on("POST /v1/shutdown", () => {
			world.transport.unreachable = true; // it answers, then exits
			return json(200, { schema: "vaultheat.ack.v1" });
		});
		await goOnline(world);
		expect(world.services.status.get().connection.phase).toBe("online");
		expect(world.services.sidecar?.running()).toBe(true);
		world.services.fix("stop-sidecar");
		await world.clock.advance(5000);
		const shutdown = world.transport.requests.find((r) => r.req.url.endsWith("/v1/shutdown"))!;
		expect(shutdown.req.url).toBe("http://127.0.0.1:40001/v1/shutdown");
		expect(shutdown.req.headers.Authorization).toBe("Bearer tok");
		expect(world.services.status.get().connection.phase).toBe("offline");
		expect(world.spawned).toEqual([]); // stopped means stopped, auto-start or not
		expect(world.services.sidecar?.running()).toBe(false);
	});

	it("leaves an adopted sidecar (not ours) running when the exclusions change, and says so", async () => {
		world = makeWorld({ withSidecar: true });
		(world.app.vault.adapter as FileSystemAdapter).hidden.set(".vaultheat/server.json", JSON.stringify({ url: "http://127.0.0.1:40001", token: "tok", pid: 999 }));
		await goOnline(world);
		await world.services.viewContext().saveSettings({ excluded: ["Templates/"] });
		await world.clock.advance(5000);
		expect(world.transport.requests.some((r) => r.req.url.endsWith("/v1/shutdown"))).toBe(false);
		expect(world.spawned).toEqual([]);
		expect(world.services.sidecar?.running()).toBe(true);
	});

	it("Obsidian quitting (or the plugin being disabled) leaves an adopted sidecar running", async () => {
		world = makeWorld({ withSidecar: true });
		(world.app.vault.adapter as FileSystemAdapter).hidden.set(".vaultheat/server.json", JSON.stringify({ url: "http://127.0.0.1:40001", token: "tok", pid: 999 }));
		await goOnline(world);
		expect(world.services.sidecar?.running()).toBe(true);
		await world.services.quit();
		await world.services.sidecar?.stopOwn();
		expect(world.transport.requests.some((r) => r.req.url.endsWith("/v1/shutdown"))).toBe(false);
	});
});
