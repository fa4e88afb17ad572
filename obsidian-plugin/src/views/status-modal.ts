/**
 * Details behind the status bar: connection, index counts, progress, the last error, the files
 * the indexer skipped and why, and the index status of the active note. It follows the status
 * store while open, so a running index pass counts up in front of the user; each part is
 * rebuilt only when what it shows changed, so open sections and the scroll position stay put.
 */
import { Modal } from "obsidian";
import { toApiError } from "../api/errors";
import type { NoteStatusDoc } from "../api/types";
import { diagnoseStatus, type FixAction } from "../state/diagnosis";
import { languagesWords } from "../state/languages";
import { type AppStatus, spaceWords, stateWords } from "../state/status";
import type { ViewContext } from "./context";
import { FIX_LABELS, renderCommand, renderDiagnosis, renderProgress } from "./dom";
import { lastMarkdownView } from "./navigation";

const SKIPPED_SHOWN = 50;

export class StatusModal extends Modal {
	private readonly ctx: ViewContext;
	private unsubscribe: (() => void) | null = null;
	private note: { path: string; doc: NoteStatusDoc | null; error: string | null } | null = null;

	constructor(ctx: ViewContext) {
		super(ctx.app);
		this.ctx = ctx;
	}

	onOpen(): void {
		this.modalEl.addClass("vaultheat-status-modal");
		this.setTitle("Vaultheat status");
		const path = lastMarkdownView(this.app)?.file?.path ?? null;
		if (path) {
			this.note = { path, doc: null, error: null };
			this.loadNote(path);
		}
		this.render(this.ctx.status.get());
		this.unsubscribe = this.ctx.status.subscribe((value) => this.render(value));
	}

	onClose(): void {
		this.unsubscribe?.();
		this.parts.clear();
		this.contentEl.empty();
	}

	private loadNote(path: string): void {
		if (this.ctx.status.get().connection.phase !== "online") return;
		this.ctx.client.noteStatus(path).then(
			(doc) => {
				this.note = { path, doc, error: null };
				this.render(this.ctx.status.get());
			},
			(err: unknown) => {
				this.note = { path, doc: null, error: toApiError(err).message };
				this.render(this.ctx.status.get());
			},
		);
	}

	/** Each part of the modal, built once and rebuilt only when what it shows changed. */
	private readonly parts = new Map<string, { el: HTMLElement; key: string }>();
	private outputOpen = false;

	private part(name: string, key: string, build: (el: HTMLElement) => void): void {
		let part = this.parts.get(name);
		if (!part) {
			part = { el: this.contentEl.createDiv({ cls: `vaultheat-status-part is-${name}` }), key: "\u0000" };
			this.parts.set(name, part);
		}
		if (part.key === key) return;
		part.key = key;
		part.el.empty();
		build(part.el);
	}

	private render(status: AppStatus): void {
		const el = this.contentEl;
		el.addClass("vaultheat-status");
		const fix = (a: FixAction): void => {
			if (a !== "stop-sidecar" && a !== "pause-index" && a !== "resume-index") this.close();
			this.ctx.fix(a);
		};
		const { connection, sidecar, index } = status;
		const online = connection.phase === "online";
		const problem = diagnoseStatus(status, this.ctx.vaultPath, this.ctx.canSpawn);
		this.part("problem", JSON.stringify(problem), (p) => {
			if (problem) renderDiagnosis(p, problem, fix, { compact: true });
		});

		const connFacts: [string, string][] = [
			["Address", connection.url || "—"],
			["State", connectionWords(connection.phase) + (online ? (connection.live ? ", live updates" : ", checking every few seconds") : "")],
			["Server version", connection.version ?? "—"],
			["Token", connection.tokenSource === "settings" ? "From settings" : connection.tokenSource === "discovery" ? "From the sidecar's server.json" : "None"],
			["Sidecar", sidecar.phase === "off" ? "Not started by Obsidian" : `${sidecarWords(sidecar.phase)}${sidecar.pid ? ` (pid ${sidecar.pid})` : ""}`],
		];
		this.part("connection", JSON.stringify([connFacts, connection.message, sidecar.commandLine, sidecar.output.slice(-15)]), (p) => {
			const conn = section(p, "Connection");
			facts(conn, connFacts);
			if (connection.message) conn.createDiv({ cls: "vaultheat-status-error", text: connection.message });
			if (sidecar.commandLine) renderCommand(conn, sidecar.commandLine);
			if (sidecar.output.length > 0) {
				const details = conn.createEl("details", { cls: "vaultheat-status-output" });
				details.open = this.outputOpen;
				details.addEventListener("toggle", () => (this.outputOpen = details.open));
				details.createEl("summary", { text: "Sidecar output" });
				details.createEl("pre", { text: sidecar.output.slice(-15).join("\n") });
			}
		});

		const doc = index.status;
		const n = (v: number): string => v.toLocaleString("en-US");
		const idxFacts: [string, string][] = doc
			? [
					["State", stateWords(doc)],
					["Notes", n(doc.notes)],
					["Passages", n(doc.chunks)],
					["Vectors", n(doc.vectors)],
					...(spaceWords(doc) ? ([["Multilingual vectors", spaceWords(doc)]] as [string, string][]) : []),
					...(languagesWords(doc.languages) ? ([["Languages", languagesWords(doc.languages)]] as [string, string][]) : []),
					["Links", `${n(doc.links.resolved)} resolved, ${n(doc.links.unresolved)} unresolved`],
					["Tags", n(doc.tags)],
					["Graph edges", `${n(doc.edges.link)} link, ${n(doc.edges.similar)} similar, ${n(doc.edges.tag)} tag`],
					["Model", doc.model.dimension ? `${doc.model.name} (${doc.model.provider}, ${doc.model.dimension} dimensions)` : `${doc.model.name} (${doc.model.provider})`],
					["Index folder", doc.index_dir],
					...(doc.queue !== undefined ? ([["Waiting", `${doc.queue} ${doc.queue === 1 ? "change" : "changes"}`]] as [string, string][]) : []),
					...(doc.excluded !== undefined ? ([["Excluded", `${doc.excluded} ${doc.excluded === 1 ? "note" : "notes"}`]] as [string, string][]) : []),
				]
			: [];
		this.part("index", JSON.stringify([idxFacts, index.progress, index.lastError, doc?.paused, online]), (p) => {
			if (!doc) return;
			const idx = section(p, "Index");
			facts(idx, idxFacts);
			renderProgress(idx, index.progress);
			if (index.lastError) idx.createDiv({ cls: "vaultheat-status-error", text: `Last error: ${index.lastError.message}` });
			if (!online) return;
			const buttons = idx.createDiv({ cls: "vaultheat-state-actions" });
			const actions: FixAction[] = ["build-index", "rebuild-index", doc.paused ? "resume-index" : "pause-index"];
			for (const action of actions) {
				const label = action === "build-index" ? "Update index" : FIX_LABELS[action];
				buttons.createEl("button", { text: label, attr: { type: "button" } }).addEventListener("click", () => fix(action));
			}
		});

		this.part("skipped", JSON.stringify(doc?.skipped ?? null), (p) => {
			if (!doc) return;
			const skipped = section(p, `Skipped files (${doc.skipped.length})`);
			if (doc.skipped.length === 0) skipped.createDiv({ cls: "vaultheat-muted", text: "None: every note was indexed." });
			else {
				const list = skipped.createEl("ul", { cls: "vaultheat-skipped" });
				for (const item of doc.skipped.slice(0, SKIPPED_SHOWN)) {
					const li = list.createEl("li");
					li.createSpan({ cls: "vaultheat-skipped-path", text: item.path });
					li.appendText(" ");
					li.createSpan({ cls: "vaultheat-skipped-reason", text: item.reason });
				}
				if (doc.skipped.length > SKIPPED_SHOWN) {
					skipped.createDiv({ cls: "vaultheat-muted", text: `…and ${doc.skipped.length - SKIPPED_SHOWN} more.` });
				}
			}
		});

		this.part("note", JSON.stringify(this.note), (p) => {
			if (!this.note) return;
			const sec = section(p, "Active note");
			const d = this.note.doc;
			if (d) {
				facts(sec, [
					["Path", d.path],
					["Indexed", d.indexed ? `Yes, ${d.chunks} ${d.chunks === 1 ? "passage" : "passages"}` : "No"],
					["Up to date", d.fresh ? "Yes" : "No: changed since it was indexed"],
					...(d.reason ? ([["Reason", d.reason]] as [string, string][]) : []),
				]);
			} else {
				facts(sec, [["Path", this.note.path]]);
				sec.createDiv({ cls: "vaultheat-muted", text: this.note.error ?? "Loading…" });
			}
		});

		// "Start sidecar" only when nothing answers; "Stop" for the one Obsidian started or adopted.
		const ours = sidecar.phase === "running" || sidecar.phase === "starting";
		const sidecarAction: FixAction | null = !this.ctx.canSpawn ? null : ours ? "stop-sidecar" : online ? null : "start-sidecar";
		this.part("footer", JSON.stringify([sidecarAction, online]), (p) => {
			const footer = p.createDiv({ cls: "vaultheat-state-actions" });
			footer.createEl("button", { text: "Reconnect", attr: { type: "button" } }).addEventListener("click", () => fix("retry"));
			if (sidecarAction) {
				footer.createEl("button", { text: FIX_LABELS[sidecarAction], attr: { type: "button" } }).addEventListener("click", () => fix(sidecarAction));
			}
		});
	}
}

function connectionWords(phase: AppStatus["connection"]["phase"]): string {
	const words: Record<AppStatus["connection"]["phase"], string> = {
		connecting: "Looking for the sidecar",
		starting: "Starting the sidecar",
		online: "Connected",
		offline: "Not running",
		unauthorized: "Token refused",
		forbidden: "Connection refused",
		incompatible: "Versions do not match",
		"other-vault": "Serves another vault",
	};
	return words[phase];
}

function sidecarWords(phase: AppStatus["sidecar"]["phase"]): string {
	const words: Record<AppStatus["sidecar"]["phase"], string> = {
		off: "Not started by Obsidian",
		starting: "Starting",
		running: "Started by Obsidian",
		missing: "Not installed",
		exited: "Stopped",
	};
	return words[phase];
}

function section(parent: HTMLElement, title: string): HTMLElement {
	const el = parent.createDiv({ cls: "vaultheat-status-section" });
	el.createDiv({ cls: "vaultheat-explain-heading", text: title });
	return el;
}

function facts(parent: HTMLElement, rows: [string, string][]): void {
	const dl = parent.createEl("dl", { cls: "vaultheat-facts" });
	for (const [key, value] of rows) {
		dl.createEl("dt", { text: key });
		dl.createEl("dd", { text: value });
	}
}
