/**
 * Small DOM pieces shared by the views. Note content only ever enters the DOM as text
 * (createEl's `text`, setText): never as HTML.
 */
import { type Scored, shownScore } from "../state/relevance";
import { setIcon, setTooltip } from "obsidian";
import type { LinkStatus } from "../api/types";
import type { Diagnosis, FixAction } from "../state/diagnosis";
import { highlightParts } from "../state/text";
import { formatEta, progressFraction } from "../state/status";

export const LINK_BADGES: Record<LinkStatus, { label: string; tooltip: string }> = {
	unlinked: { label: "Unlinked", tooltip: "Neither note links to the other" },
	linked: { label: "Linked", tooltip: "This note already links to it" },
	backlinked: { label: "Links here", tooltip: "It links to this note, but not back" },
	both: { label: "Both ways", tooltip: "The notes link to each other" },
};

export const FIX_LABELS: Record<FixAction, string> = {
	"start-sidecar": "Start sidecar",
	retry: "Reconnect",
	"open-settings": "Open settings",
	"build-index": "Build index",
	"rebuild-index": "Rebuild index",
	"resume-index": "Resume indexing",
	"pause-index": "Pause indexing",
	"stop-sidecar": "Stop sidecar",
	"show-status": "Show details",
	"setup-start": "Start",
	"setup-always": "Always start automatically",
	"setup-rescan": "Look again",
};

export function formatScore(score: number): string {
	return score.toFixed(2);
}

export function renderBadge(parent: HTMLElement, status: LinkStatus): HTMLElement {
	const badge = LINK_BADGES[status] ?? { label: status, tooltip: "" };
	const el = parent.createSpan({ cls: `vaultheat-badge is-${status}`, text: badge.label });
	if (badge.tooltip) setTooltip(el, badge.tooltip);
	return el;
}

/** A thin bar for a score in 0..1, with the number beside it. */
export function renderScore(parent: HTMLElement, score: number, label = "Score"): HTMLElement {
	const wrap = parent.createDiv({ cls: "vaultheat-score" });
	const clamped = Math.max(0, Math.min(1, score));
	const track = wrap.createDiv({
		cls: "vaultheat-score-track",
		attr: { role: "meter", "aria-valuemin": "0", "aria-valuemax": "1", "aria-valuenow": clamped.toFixed(2), "aria-label": label },
	});
	const fill = track.createDiv({ cls: "vaultheat-score-fill" });
	fill.setCssProps({ "--vaultheat-fill": `${Math.round(clamped * 100)}%` });
	wrap.createSpan({ cls: "vaultheat-score-value", text: formatScore(score) });
	return wrap;
}

export function iconButton(parent: HTMLElement, icon: string, label: string, onClick: (evt: MouseEvent) => void): HTMLButtonElement {
	const button = parent.createEl("button", { cls: "clickable-icon vaultheat-icon-button", attr: { "aria-label": label, type: "button" } });
	setIcon(button, icon);
	button.addEventListener("click", (evt) => {
		evt.preventDefault();
		evt.stopPropagation();
		onClick(evt);
	});
	return button;
}

/** Text with the parts that match the query wrapped in <mark>. */
export function renderHighlighted(parent: HTMLElement, text: string, terms: readonly string[]): void {
	for (const part of highlightParts(text, terms)) {
		if (part.match) parent.createEl("mark", { cls: "vaultheat-match", text: part.text });
		else parent.appendText(part.text);
	}
}

export function renderProgress(parent: HTMLElement, progress: Diagnosis["progress"]): void {
	if (!progress) return;
	const fraction = progressFraction(progress);
	const wrap = parent.createDiv({ cls: "vaultheat-progress" });
	const bar = wrap.createDiv({
		cls: "vaultheat-progress-track",
		attr: {
			role: "progressbar",
			"aria-valuemin": "0",
			"aria-valuemax": String(progress.total),
			"aria-valuenow": String(progress.done),
			"aria-label": "Indexing progress",
		},
	});
	const fill = bar.createDiv({ cls: "vaultheat-progress-fill" });
	if (fraction === null) bar.addClass("is-indeterminate");
	else fill.setCssProps({ "--vaultheat-fill": `${Math.round(fraction * 100)}%` });
	const eta = formatEta(progress.eta_s);
	const counts = progress.total > 0 ? `${progress.done.toLocaleString("en-US")} of ${progress.total.toLocaleString("en-US")}` : "";
	const words = [progress.stage, counts, eta ? `about ${eta} left` : ""].filter(Boolean).join(" · ");
	wrap.createDiv({ cls: "vaultheat-progress-text", text: words });
}

/** An empty or error state: icon, title, sentence, command to copy, fix buttons. */
export function renderDiagnosis(
	parent: HTMLElement,
	diagnosis: Diagnosis,
	onFix: (action: FixAction) => void,
	options: { compact?: boolean } = {},
): HTMLElement {
	const el = parent.createDiv({
		cls: `vaultheat-state is-${diagnosis.tone}${options.compact ? " is-compact" : ""}`,
		attr: { role: diagnosis.tone === "error" ? "alert" : "status" },
	});
	const icon = el.createDiv({ cls: "vaultheat-state-icon" });
	setIcon(icon, diagnosis.tone === "error" ? "alert-triangle" : diagnosis.tone === "busy" ? "loader" : "info");
	const body = el.createDiv({ cls: "vaultheat-state-body" });
	body.createDiv({ cls: "vaultheat-state-title", text: diagnosis.title });
	if (diagnosis.detail) body.createDiv({ cls: "vaultheat-state-detail", text: diagnosis.detail });
	if (diagnosis.command) renderCommand(body, diagnosis.command);
	renderProgress(body, diagnosis.progress ?? null);
	if (diagnosis.actions.length > 0) {
		const buttons = body.createDiv({ cls: "vaultheat-state-actions" });
		diagnosis.actions.forEach((action, i) => {
			const button = buttons.createEl("button", { text: FIX_LABELS[action], attr: { type: "button" } });
			if (i === 0) button.addClass("mod-cta");
			button.addEventListener("click", () => onFix(action));
		});
	}
	return el;
}

/** A command line with a copy button. */
export function renderCommand(parent: HTMLElement, command: string): void {
	const row = parent.createDiv({ cls: "vaultheat-command" });
	row.createEl("code", { text: command });
	iconButton(row, "copy", "Copy command", () => {
		void navigator.clipboard?.writeText(command);
	});
}

/**
 * "Setup › Install" for a heading path; "" when there is none. A first heading that repeats
 * the note's title (the usual "# Title" line) is left out: the title is shown already.
 */
export function headingTrail(path: readonly string[], title = ""): string {
	const parts = path.filter(Boolean);
	if (title && parts[0]?.trim().toLowerCase() === title.trim().toLowerCase()) parts.shift();
	return parts.join(" › ");
}

/**
 * An honest score: the absolute relevance as a bar, its label as a readable badge ("Strong"),
 * the arithmetic in the tooltip; a server without relevance shows the relative score, said so.
 */
export function renderRelevance(parent: HTMLElement, hit: Scored): HTMLElement {
	const shown = shownScore(hit);
	const wrap = renderScore(parent, shown.value, shown.words);
	wrap.addClass(shown.absolute ? "is-absolute" : "is-relative");
	wrap.setAttr("title", shown.words);
	const value = wrap.querySelector(".vaultheat-score-value");
	if (value) value.textContent = shown.text;
	if (shown.label) {
		wrap.createSpan({ cls: `vaultheat-relevance is-${shown.label}`, text: shown.label.charAt(0).toUpperCase() + shown.label.slice(1) });
		wrap.addClass(`is-${shown.label}`);
	}
	return wrap;
}

/** The small "Multilingual" marker of a result read in the multilingual space (state/space.ts), with its tooltip. */
export function renderSpaceMark(parent: HTMLElement, mark: { text: string; tooltip: string } | null): void {
	if (mark) parent.createSpan({ cls: "vaultheat-space-mark", text: mark.text, attr: { title: mark.tooltip, "aria-label": mark.tooltip } });
}
