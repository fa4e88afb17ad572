/**
 * Details behind the status bar: connection, index counts, progress, the last error, the files
 * the indexer skipped and why, and the index status of the active note. It follows the status
 * store while open, so a running index pass counts up in front of the user.
 */
import { Modal } from "obsidian";
import { toApiError } from "../api/errors";
import type { NoteStatusDoc } from "../api/types";
import { diagnoseStatus, type FixAction } from "../state/diagnosis";
import type { AppStatus } from "../state/status";
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

	private render(status: AppStatus): void {
		const el = this.contentEl;
		el.empty();
		el.addClass("vaultheat-status");
		const fix = (a: FixAction): void => {
			if (a !== "stop-sidecar" && a !== "pause-index" && a !== "resume-index") this.close();
			this.ctx.fix(a);
		};
		const problem = diagnoseStatus(status, this.ctx.vaultPath, this.ctx.canSpawn);
		if (problem) renderDiagnosis(el, problem, fix, { compact: true });

		const { connection, sidecar, index } = status;
		const conn = section(el, "Connection");
		facts(conn, [
			["Address", connection.url || "—"],
			["State", connection.phase + (connection.live ? " (live events)" : "")],
			["Server version", connection.version ?? "—"],
			["Token", connection.tokenSource === "settings" ? "From settings" : connection.tokenSource === "discovery" ? "From .vaultheat/server.json" : "None"],
			["Sidecar", sidecar.phase === "off" ? "Not started by Obsidian" : `${sidecar.phase}${sidecar.pid ? ` (pid ${sidecar.pid})` : ""}`],
		]);
		if (connection.message) conn.createDiv({ cls: "vaultheat-status-error", text: connection.message });
		if (sidecar.commandLine) renderCommand(conn, sidecar.commandLine);
		if (sidecar.output.length > 0) {
			const details = conn.createEl("details", { cls: "vaultheat-status-output" });
			details.createEl("summary", { text: "Sidecar output" });
			details.createEl("pre", { text: sidecar.output.slice(-15).join("\n") });
		}

		const doc = index.status;
		if (doc) {
			const idx = section(el, "Index");
			facts(idx, [
				["State", doc.paused ? `${doc.state}, paused` : doc.state],
				["Notes", doc.notes.toLocaleString("en-US")],
				["Passages", doc.chunks.toLocaleString("en-US")],
				["Vectors", doc.vectors.toLocaleString("en-US")],
				["Links", `${doc.links.resolved.toLocaleString("en-US")} resolved, ${doc.links.unresolved.toLocaleString("en-US")} unresolved`],
				["Tags", doc.tags.toLocaleString("en-US")],
				["Graph edges", `${doc.edges.link} link, ${doc.edges.similar} similar, ${doc.edges.tag} tag`],
				["Model", `${doc.model.name} (${doc.model.provider}, ${doc.model.dimension} dimensions)`],
				["Index folder", doc.index_dir],
				...(doc.queue !== undefined ? ([["Waiting", `${doc.queue} ${doc.queue === 1 ? "change" : "changes"}`]] as [string, string][]) : []),
				...(doc.excluded !== undefined ? ([["Excluded", `${doc.excluded} ${doc.excluded === 1 ? "note" : "notes"}`]] as [string, string][]) : []),
			]);
			renderProgress(idx, index.progress);
			if (index.lastError) idx.createDiv({ cls: "vaultheat-status-error", text: `Last error: ${index.lastError.message}` });
			const buttons = idx.createDiv({ cls: "vaultheat-state-actions" });
			const actions: FixAction[] = ["build-index", "rebuild-index", doc.paused ? "resume-index" : "pause-index"];
			for (const action of actions) {
				const label = action === "build-index" ? "Update index" : FIX_LABELS[action];
				buttons.createEl("button", { text: label, attr: { type: "button" } }).addEventListener("click", () => fix(action));
			}

			const skipped = section(el, `Skipped files (${doc.skipped.length})`);
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
		}

		if (this.note) {
			const n = section(el, "Active note");
			const d = this.note.doc;
			if (d) {
				facts(n, [
					["Path", d.path],
					["Indexed", d.indexed ? `Yes, ${d.chunks} ${d.chunks === 1 ? "passage" : "passages"}` : "No"],
					["Up to date", d.fresh ? "Yes" : "No: changed since it was indexed"],
					...(d.reason ? ([["Reason", d.reason]] as [string, string][]) : []),
				]);
			} else {
				facts(n, [["Path", this.note.path]]);
				n.createDiv({ cls: "vaultheat-muted", text: this.note.error ?? "Loading…" });
			}
		}
		const footer = el.createDiv({ cls: "vaultheat-state-actions" });
		footer.createEl("button", { text: "Reconnect", attr: { type: "button" } }).addEventListener("click", () => fix("retry"));
		if (this.ctx.canSpawn) {
			const running = sidecar.phase === "running" || sidecar.phase === "starting";
			const action: FixAction = running ? "stop-sidecar" : "start-sidecar";
			footer.createEl("button", { text: FIX_LABELS[action], attr: { type: "button" } }).addEventListener("click", () => fix(action));
		}
	}
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
