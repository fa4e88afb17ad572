/**
 * A small Obsidian world for view tests: the stub App with a seeded vault, the real services
 * wired to a FakeTransport and a ManualClock, and helpers to open notes and type.
 */
import { App, FileSystemAdapter, MarkdownView, TFile, Vault, type WorkspaceLeaf } from "obsidian";
import { createServices, type Services } from "../src/services";
import { loadSettings, sidecarExcludes, type VaultheatSettings } from "../src/settings";
import { SidecarManager, type SpawnFn } from "../src/sidecar";
import type { FixAction } from "../src/state/diagnosis";
import { VIEW_TYPE_RELATED } from "../src/views/context";
import { RelatedView } from "../src/views/related-view";
import { StatusModal } from "../src/views/status-modal";
import type { RelatedHit } from "../src/api/types";
import type { SnapshotFiles } from "../src/state/snapshot-keeper";
import type { Ask } from "../src/views/confirm";
import { FakeTransport, flush, json, ManualClock, relatedDoc, statusDoc } from "./helpers";

export const NOTES: Record<string, string> = {
	"Alpha.md": "# Alpha\n\nAlpha talks about gardening and tomatoes.\n\n## Soil\nCompost matters.",
	"Projects/Beta.md": "# Beta\n\nBeta is about compost and soil.",
	"Gamma.md": "# Gamma\n\nSomething else entirely.",
};

export interface World {
	app: App;
	transport: FakeTransport;
	clock: ManualClock;
	services: Services;
	settings: () => VaultheatSettings;
	fixes: FixAction[];
	spawned: string[][];
}

export interface WorldOptions {
	settings?: Partial<VaultheatSettings>;
	withSidecar?: boolean;
	spawn?: SpawnFn;
	/** What the search for an installed vaultheat finds (the setup card). */
	detect?: () => { command: string; version: string | null } | null;
	/** Where the related-notes snapshot's parts are kept (none by default). */
	snapshotFiles?: SnapshotFiles;
	/** Asks yes or no (default: the modal). */
	confirm?: (ask: Ask) => Promise<boolean>;
	/** The mobile app: no discovery file, no local sidecar. */
	remoteOnly?: boolean;
}

/** Our pid as the fake sidecar is told it (`--parent-pid`). */
export const PLUGIN_PID = 4242;

export function makeWorld(options: WorldOptions = {}): World {
	document.body.innerHTML = "";
	const vault = new Vault(new FileSystemAdapter("/vault"));
	vault.seed(NOTES);
	const app = new App(document, vault);
	document.body.append(app.workspace.containerEl, app.statusBarEl);
	const transport = new FakeTransport()
		.on("GET /v1/health", () => json(200, { schema: "vaultheat.health.v1", status: "ok", version: "0.1.0", state: "ready" }))
		.on("GET /v1/status", () => json(200, statusDoc()));
	const clock = new ManualClock();
	// The setup card was answered unless a test says otherwise (test/consent.test.ts).
	let settings = loadSettings({ setupDone: true, ...options.settings });
	const fixes: FixAction[] = [];
	const spawned: string[][] = [];
	const spawn: SpawnFn = (command, args, opts) => {
		spawned.push([command, ...args]);
		if (options.spawn) return options.spawn(command, args, opts);
		throw Object.assign(new Error("spawn ENOENT"), { code: "ENOENT" });
	};
	const sidecar = options.withSidecar
		? new SidecarManager(
				spawn,
				() => ({ command: settings.command, pythonPath: "", vaultPath: "/vault", port: null, indexDir: settings.indexDir, exclude: sidecarExcludes(settings.excluded), parentPid: PLUGIN_PID }),
				{},
			)
		: null;
	const services: Services = createServices({
		app,
		transport,
		events: null,
		sidecar,
		clock,
		vaultPath: "/vault",
		settings: () => settings,
		saveSettings: async (patch) => {
			const previous = settings;
			settings = loadSettings({ ...settings, ...patch });
			services.settingsChanged(previous);
		},
		openSettings: () => app.setting.openTabById("vaultheat"),
		showStatus: () => new StatusModal(services.viewContext()).open(),
		detect: options.detect,
		snapshotFiles: options.snapshotFiles,
		confirm: options.confirm,
		keepSnapshot: () => settings.keepSnapshot,
		remoteOnly: options.remoteOnly,
	});
	const realFix = services.fix;
	services.fix = (action) => {
		fixes.push(action);
		realFix(action);
	};
	const ctx = services.viewContext();
	ctx.fix = services.fix;
	app.viewRegistry.set(VIEW_TYPE_RELATED, (leaf) => new RelatedView(leaf, ctx));
	return { app, transport, clock, services, settings: () => settings, fixes, spawned };
}

/** Connects (health + status through the fake transport). */
export async function goOnline(world: World): Promise<void> {
	world.services.connection.connect();
	await world.clock.advance(0);
}

export async function openSidebar(world: World): Promise<{ leaf: WorkspaceLeaf; view: RelatedView }> {
	const leaf = world.app.workspace.getRightLeaf(false);
	await leaf.setViewState({ type: VIEW_TYPE_RELATED });
	world.app.workspace.setLayoutReady();
	return { leaf, view: leaf.view as unknown as RelatedView };
}

/** Online, the sidebar open and Alpha.md in the editor, `/v1/related` answering `hits`. */
export async function withSidebar(world: World, hits: RelatedHit[]): Promise<{ leaf: WorkspaceLeaf; view: RelatedView; editor: MarkdownView; root: HTMLElement }> {
	world.transport.on("POST /v1/related", () => json(200, relatedDoc("Alpha.md", hits)));
	await goOnline(world);
	const { leaf, view } = await openSidebar(world);
	const editor = await openNote(world, "Alpha.md");
	await flush();
	return { leaf, view, editor, root: view.contentEl };
}

export async function openNote(world: World, path: string, newLeaf = false): Promise<MarkdownView> {
	const file = world.app.vault.getFileByPath(path);
	if (!(file instanceof TFile)) throw new Error(`no ${path}`);
	const leaf = world.app.workspace.getLeaf(newLeaf);
	await leaf.openFile(file);
	await flush();
	return leaf.view as MarkdownView;
}

/** Types at the end of the editor like a user (one input event per call). */
export function typeInto(view: MarkdownView, text: string): void {
	const ta = view.editor.textarea;
	ta.value += text;
	ta.setSelectionRange(ta.value.length, ta.value.length);
	ta.dispatchEvent(new Event("input", { bubbles: true }));
}

export function text(el: Element | null | undefined): string {
	return (el?.textContent ?? "").replace(/\s+/g, " ").trim();
}

export function key(target: EventTarget, k: string, mods: Partial<KeyboardEventInit> = {}): KeyboardEvent {
	const evt = new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true, ...mods });
	target.dispatchEvent(evt);
	return evt;
}
