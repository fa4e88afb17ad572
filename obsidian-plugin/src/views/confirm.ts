/**
 * Yes or no before something that changes the whole index (rebuild it, exclude a folder, switch
 * the model): a title, what will happen, and a button named for the action. Escape, the close
 * button and Cancel all answer no.
 */
import { type App, Modal } from "obsidian";

export interface Ask {
	title: string;
	body: string;
	/** The button that says yes, named for the action ("Rebuild"). */
	yes: string;
}

export class ConfirmModal extends Modal {
	private answered = false;

	constructor(
		app: App,
		private readonly ask: Ask,
		private readonly answer: (yes: boolean) => void,
	) {
		super(app);
	}

	onOpen(): void {
		this.modalEl.addClass("vaultheat-confirm");
		this.setTitle(this.ask.title);
		this.contentEl.createEl("p", { text: this.ask.body });
		const buttons = this.contentEl.createDiv({ cls: "modal-button-container" });
		const yes = buttons.createEl("button", { cls: "mod-cta", text: this.ask.yes, attr: { type: "button" } });
		yes.addEventListener("click", () => this.settle(true));
		buttons.createEl("button", { text: "Cancel", attr: { type: "button" } }).addEventListener("click", () => this.settle(false));
		yes.focus();
	}

	onClose(): void {
		this.contentEl.empty();
		if (!this.answered) {
			this.answered = true;
			this.answer(false);
		}
	}

	private settle(yes: boolean): void {
		if (this.answered) return;
		this.answered = true;
		this.close();
		this.answer(yes);
	}
}

/** Opens the question and resolves with the answer. */
export function confirm(app: App, ask: Ask): Promise<boolean> {
	return new Promise((resolve) => new ConfirmModal(app, ask, resolve).open());
}
