/**
 * The status bar item: one word or two about the connection and the index, a coloured dot, and
 * a click that opens the details. It re-renders only when its text or tone changes.
 */
import { setIcon, setTooltip } from "obsidian";
import type { AppStatus } from "../state/status";
import { stateWords, statusBarText } from "../state/status";
import type { Store } from "../state/store";

export function mountStatusBar(el: HTMLElement, status: Store<AppStatus>, onClick: () => void): () => void {
	el.addClass("vaultheat-statusbar", "mod-clickable");
	el.setAttr("role", "button");
	el.setAttr("tabindex", "0");
	const icon = el.createSpan({ cls: "vaultheat-statusbar-icon" });
	setIcon(icon, "flame");
	const dot = el.createSpan({ cls: "vaultheat-statusbar-dot" });
	const text = el.createSpan({ cls: "vaultheat-statusbar-text" });
	let shown = "";
	const render = (value: AppStatus): void => {
		const { text: words, tone } = statusBarText(value);
		// The server's reason in plain words ("736 of 6,571 notes indexed; ...") in the tooltip.
		const doc = value.index.status;
		const detail = value.connection.phase === "online" && doc ? stateWords(doc) : "";
		const key = `${tone}|${words}|${detail}`;
		if (key === shown) return;
		shown = key;
		text.setText(words);
		dot.className = `vaultheat-statusbar-dot is-${tone}`;
		const label = `Vaultheat: ${words}.${detail ? ` ${detail}.` : ""} Click for details.`;
		el.setAttr("aria-label", label);
		setTooltip(el, label, { placement: "top" });
	};
	el.addEventListener("click", onClick);
	el.addEventListener("keydown", (evt) => {
		if (evt.key === "Enter" || evt.key === " ") {
			evt.preventDefault();
			onClick();
		}
	});
	render(status.get());
	return status.subscribe((value) => render(value));
}
