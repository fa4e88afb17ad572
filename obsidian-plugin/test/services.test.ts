import { afterEach, describe, expect, it } from "vitest";
import { FakeChild } from "./fake-child";
import { flush } from "./helpers";
import { makeWorld, type World } from "./world";

let world: World;
afterEach(() => world?.services.dispose());

describe("exclusions reach the sidecar's index", () => {
	it("restarts the sidecar it started with the new --exclude globs, once typing stops", async () => {
		const children: FakeChild[] = [];
		world = makeWorld({
			withSidecar: true,
			settings: { autoStart: false },
			spawn: () => {
				const child = new FakeChild(7);
				children.push(child);
				queueMicrotask(() => child.emit("spawn"));
				return child;
			},
		});
		await world.services.connection.startSidecar();
		expect(world.spawned[0]).toEqual(["vaultheat", "serve", "--vault", "/vault", "--port", "0", "--parent-pid", "4242"]);
		await world.services.viewContext().saveSettings({ excluded: ["Templates"] });
		await world.services.viewContext().saveSettings({ excluded: ["Templates", "Archive/"] });
		await world.clock.advance(1499);
		expect(children[0]?.signals).toEqual([]);
		await world.clock.advance(1);
		expect(children[0]?.signals).toEqual(["SIGTERM"]);
		children[0]!.exitCode = 0;
		children[0]?.emit("exit", 0, null);
		await flush();
		expect(world.spawned).toHaveLength(2);
		expect(world.spawned[1]).toEqual(["vaultheat", "serve", "--vault", "/vault", "--port", "0", "--parent-pid", "4242", "--exclude", "Templates/**", "--exclude", "Archive/**"]);
	});

	it("leaves a sidecar it did not start alone (the exclusions then only hide results)", async () => {
		world = makeWorld({ withSidecar: true, settings: { autoStart: false } });
		await world.services.viewContext().saveSettings({ excluded: ["Templates"] });
		await world.clock.advance(5000);
		expect(world.spawned).toEqual([]);
	});
});

describe("model presets", () => {
	it("sets the preset in the index's config, restarts the sidecar and starts the rebuild", async () => {
		const children: FakeChild[] = [];
		world = makeWorld({
			withSidecar: true,
			settings: { autoStart: false },
			spawn: (_command, args) => {
				const child = new FakeChild(7);
				children.push(child);
				queueMicrotask(() => {
					child.emit("spawn");
					// `config set` is a short process: it exits at once.
					if (args[0] === "config") {
						child.exitCode = 0;
						child.emit("exit", 0, null);
					}
				});
				return child;
			},
		});
		world.transport.on("POST /v1/index", () => ({ status: 200, headers: {}, text: JSON.stringify({ schema: "vaultheat.ack.v1" }), json: { schema: "vaultheat.ack.v1" }, arrayBuffer: new ArrayBuffer(0) }));
		const message = world.services.changeModel("multilingual");
		for (let i = 0; i < 20; i++) await world.clock.advance(500);
		await expect(message).resolves.toBe("Model set to multilingual; rebuilding the index.");
		expect(world.spawned[0]).toEqual(["vaultheat", "config", "set", "embeddings.model", "multilingual", "--vault", "/vault"]);
		expect(world.spawned[1]?.slice(0, 2)).toEqual(["vaultheat", "serve"]);
		expect(world.settings().model).toBe("multilingual");
		expect(world.transport.bodies("POST /v1/index")).toEqual([{ full: true }]);
	});

	it("stops when the sidecar refuses the value", async () => {
		world = makeWorld({
			withSidecar: true,
			settings: { autoStart: false },
			spawn: () => {
				const child = new FakeChild(7);
				queueMicrotask(() => {
					child.stderr.emit("data", "bad value for embeddings.model\n");
					child.emit("exit", 2, null);
				});
				return child;
			},
		});
		await expect(world.services.changeModel("english")).resolves.toBe("The sidecar did not accept the model: bad value for embeddings.model");
		expect(world.settings().model).toBe("server");
		expect(world.spawned).toHaveLength(1);
	});
});
