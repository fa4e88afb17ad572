/**
 * The frame both "why" modals share (explain-modal.ts, missing-modal.ts): a context line with a
 * way back to the search it came from, a loading state while the server answers, the answer
 * rendered (its note links close the modal and open the note), or a diagnosis when the request
 * fails. Closing returns to where it was opened from, unless a note was opened.
 */
import { Modal, setIcon } from "obsidian";
import { toApiError } from "../api/errors";
import { diagnoseQueryError } from "../state/diagnosis";
import type { ViewContext } from "./context";
import { renderDiagnosis } from "./dom";
import { openNoteAtLine } from "./navigation";

export interface Back {
	label: string;
	run: () => void;
}

export type OpenNote = (path: string, line: number) => void;

export abstract class TracedModal extends Modal {
	protected readonly ctx: ViewContext;
	private readonly back: Back | undefined;
	private closed = false;
	private leaving = false;

	constructor(ctx: ViewContext, back: Back | undefined) {
		super(ctx.app);
		this.ctx = ctx;
		this.back = back;
	}

	/** The back button, inside the context line. */
	protected addBack(context: HTMLElement): void {
		const back = this.back;
		if (!back) return;
		const button = context.createEl("button", { cls: "vaultheat-explain-back", text: `← ${back.label}`, attr: { type: "button" } });
		button.addEventListener("click", () => this.close());
	}

	/** Shows `waiting` until `answer` settles, then `render`s it (or the diagnosis of its error). */
	protected load<T>(body: HTMLElement, waiting: string, answer: Promise<T>, render: (body: HTMLElement, doc: T, open: OpenNote) => void): void {
		const loading = body.createDiv({ cls: "vaultheat-state is-busy", attr: { role: "status" } });
		setIcon(loading.createDiv({ cls: "vaultheat-state-icon" }), "loader");
		loading.createDiv({ cls: "vaultheat-state-title", text: waiting });
		answer.then(
			(doc) => {
				if (this.closed) return;
				loading.remove();
				render(body, doc, (path, line) => {
					this.leaving = true;
					this.close();
					void openNoteAtLine(this.app, path, line);
				});
			},
			(err: unknown) => {
				if (this.closed) return;
				loading.remove();
				const diagnosis = diagnoseQueryError(toApiError(err), this.ctx.status.get(), this.ctx.vaultPath, this.ctx.canSpawn);
				renderDiagnosis(body, diagnosis, (a) => {
					this.leaving = true;
					this.close();
					this.ctx.fix(a);
				});
			},
		);
	}

	onClose(): void {
		this.closed = true;
		this.contentEl.empty();
		if (!this.leaving) this.back?.run();
	}
}
