/**
 * "Why is this here?": the explain document as a person reads it. Top: the score and the
 * sentence that sums it up, then each component as a bar with its weight and contribution.
 * Below: the path from the seed (where retrieval started) through each graph hop (edge type and
 * the numbers that decayed the heat) to the result, with the snippet of every step.
 */
import { setIcon } from "obsidian";
import type { ExplainDoc, ExplainRequest, LinkHeat, PointerCredit, VectorSpace, Votes } from "../api/types";
import { COMPONENT_LABELS, contributions, edgeLabel, scoreSentence, stageLabel } from "../state/explain";
import { spaceSentence } from "../state/languages";
import { heatArithmetic, heatSentence, scoreSum } from "../state/linkheat";
import { basename, toSnippet } from "../state/text";
import { votesArithmetic, votesSentence } from "../state/votes";
import type { ViewContext } from "./context";
import { formatScore, headingTrail, renderScore } from "./dom";
import { TracedModal } from "./traced-modal";

export interface ExplainTarget {
	kind: "related" | "search";
	request: ExplainRequest;
	title: string;
	path: string;
	score: number;
	/** Where "open" goes (1-based line). */
	line?: number;
	/** Where closing returns to (the search it was opened from), unless a note was opened. */
	back?: { label: string; run: () => void };
}

export function openExplain(ctx: ViewContext, target: ExplainTarget): ExplainModal {
	const modal = new ExplainModal(ctx, target);
	modal.open();
	return modal;
}

export class ExplainModal extends TracedModal {
	private readonly target: ExplainTarget;

	constructor(ctx: ViewContext, target: ExplainTarget) {
		super(ctx, target.back);
		this.target = target;
	}

	onOpen(): void {
		const { target } = this;
		this.modalEl.addClass("vaultheat-explain-modal");
		this.setTitle(target.kind === "related" ? `Why “${target.title}” is related` : `Why “${target.title}” matches`);
		const body = this.contentEl;
		body.addClass("vaultheat-explain");
		const context = body.createDiv({ cls: "vaultheat-explain-context" });
		if ("query" in target.request) {
			context.setText(`For the search “${target.request.query}”`);
		} else {
			context.setText(`To ${basename(target.request.path)}${target.request.cursor !== undefined ? ", around your cursor" : ""}`);
		}
		this.addBack(context);
		this.load(body, "Tracing the path…", this.ctx.client.explain(target.request), renderExplain);
	}
}

/** Renders an explain document into `parent` (exported for the unit tests). */
export function renderExplain(parent: HTMLElement, doc: ExplainDoc, open: (path: string, line: number) => void): void {
	renderBreakdown(parent, doc);
	if (doc.space) renderSpace(parent, doc.space);
	if (doc.link_heat) renderScoreSum(parent, doc, doc.link_heat);
	if (doc.votes) renderVotes(parent, doc.votes, open);
	if (doc.link_heat) renderLinkHeat(parent, doc.link_heat);
	if (doc.pointer) renderPointer(parent, doc.pointer, open);
	renderPath(parent, doc, open);
}

/** Which vector space scored the passage, and why, in one line (the sidecar's rule as its tooltip). */
function renderSpace(parent: HTMLElement, space: VectorSpace): void {
	parent.createDiv({
		cls: `vaultheat-explain-space${space.partial ? " is-partial" : ""}`,
		text: spaceSentence(space),
		attr: { title: `Routing: ${space.reason}` },
	});
}

/** The pointer credit in words, with a link to the digest's bullet that moved it. */
function renderPointer(parent: HTMLElement, pointer: PointerCredit, open: (path: string, line: number) => void): void {
	const section = parent.createDiv({ cls: "vaultheat-explain-section vaultheat-pointer" });
	const heading = pointer.received > 0 ? "Pointed at by a digest" : "Points at another note";
	section.createDiv({ cls: "vaultheat-explain-heading", text: heading });
	section.createDiv({ cls: "vaultheat-explain-sentence", text: pointer.text });
	const entry = pointer.from ?? pointer.entry;
	if (!entry) return;
	const link = section.createEl("a", { cls: "vaultheat-step-note", text: `${basename(entry.path)}, line ${entry.line_start}`, attr: { href: "#", title: entry.path } });
	link.addEventListener("click", (evt) => {
		evt.preventDefault();
		open(entry.path, entry.line_start);
	});
}

function renderScoreSum(parent: HTMLElement, doc: ExplainDoc, heat: LinkHeat): void {
	const section = parent.createDiv({ cls: "vaultheat-explain-section vaultheat-score-sum" });
	section.createDiv({ cls: "vaultheat-explain-heading", text: "Note score" });
	section.createDiv({ cls: "vaultheat-edge-math", text: scoreSum(doc, heat) });
}

/** Link heat in words and the arithmetic that added its bonus. */
function renderLinkHeat(parent: HTMLElement, heat: LinkHeat): void {
	const section = parent.createDiv({ cls: "vaultheat-explain-section vaultheat-link-heat" });
	const how = heat.kind === "ra" ? "resource allocation" : "personalized PageRank";
	section.createDiv({ cls: "vaultheat-explain-heading", text: "Close through your note's links", attr: { title: `Link heat: ${how} over the link graph` } });
	section.createDiv({ cls: "vaultheat-explain-sentence", text: heatSentence(heat) });
	section.createDiv({ cls: "vaultheat-edge-math", text: heatArithmetic(heat) });
}

/** The link votes in words, each voter a row, and the arithmetic that added the bonus. */
function renderVotes(parent: HTMLElement, votes: Votes, open: (path: string, line: number) => void): void {
	const section = parent.createDiv({ cls: "vaultheat-explain-section vaultheat-votes" });
	section.createDiv({ cls: "vaultheat-explain-heading", text: "Linked by your closest notes" });
	section.createDiv({ cls: "vaultheat-explain-sentence", text: votesSentence(votes) });
	const list = section.createEl("ul", { cls: "vaultheat-voters" });
	for (const voter of votes.voters) {
		const li = list.createEl("li");
		const link = li.createEl("a", { cls: "vaultheat-step-note", text: voter.title, attr: { href: "#", title: voter.path } });
		link.addEventListener("click", (evt) => {
			evt.preventDefault();
			open(voter.path, 1);
		});
		li.createSpan({ cls: "vaultheat-num", text: ` ${voter.score.toFixed(2)}` });
	}
	section.createDiv({ cls: "vaultheat-edge-math", text: votesArithmetic(votes) });
}

/** The score, the sentence that sums it up and a row per component (also the missing view's). */
export function renderBreakdown(parent: HTMLElement, doc: Pick<ExplainDoc, "score" | "components" | "content_score" | "coverage">): void {
	const section = parent.createDiv({ cls: "vaultheat-explain-section" });
	const head = section.createDiv({ cls: "vaultheat-explain-scorehead" });
	head.createDiv({ cls: "vaultheat-explain-final", text: formatScore(doc.score) });
	const words = head.createDiv({ cls: "vaultheat-explain-scorewords" });
	words.createDiv({ cls: "vaultheat-explain-heading", text: "Score" });
	words.createDiv({ cls: "vaultheat-explain-sentence", text: scoreSentence(doc) });
	// A note's score counts several of its passages; the breakdown is for the best one. Link
	// votes and link heat come on top of the content score, so that is what the passage makes.
	const passageOnly = Math.abs((doc.content_score ?? doc.score) - doc.components.final) >= 0.005;
	if (passageOnly) {
		words.createDiv({ cls: "vaultheat-explain-passage", text: passageSentence(doc) });
	}

	const table = section.createDiv({ cls: "vaultheat-breakdown", attr: { role: "table", "aria-label": "Score breakdown" } });
	const header = table.createDiv({ cls: "vaultheat-breakdown-row is-header", attr: { role: "row" } });
	for (const label of ["Component", "Normalized", "Raw", "Weight", "Adds"]) {
		header.createDiv({ text: label, attr: { role: "columnheader" } });
	}
	for (const c of contributions(doc)) {
		const label = COMPONENT_LABELS[c.component];
		const row = table.createDiv({ cls: `vaultheat-breakdown-row${c.value === null ? " is-unused" : ""}`, attr: { role: "row" } });
		const name = row.createDiv({ cls: "vaultheat-breakdown-name", attr: { role: "cell", title: label.help } });
		name.createDiv({ text: label.name });
		name.createDiv({ cls: "vaultheat-breakdown-help", text: label.help });
		const bar = row.createDiv({ attr: { role: "cell" } });
		if (c.normalized === null) bar.createSpan({ cls: "vaultheat-muted", text: "Not used" });
		else renderScore(bar, c.normalized, `${label.name} normalized`);
		row.createDiv({ cls: "vaultheat-num", text: c.raw === null ? "–" : c.raw.toFixed(3), attr: { role: "cell" } });
		row.createDiv({ cls: "vaultheat-num", text: `× ${c.weight.toFixed(2)}`, attr: { role: "cell" } });
		row.createDiv({ cls: "vaultheat-num is-strong", text: c.value === null ? "–" : c.value < 0 ? `− ${(-c.value).toFixed(2)}` : `+ ${c.value.toFixed(2)}`, attr: { role: "cell" } });
	}
	const total = table.createDiv({ cls: "vaultheat-breakdown-row is-total", attr: { role: "row" } });
	total.createDiv({ text: passageOnly ? "Best passage" : "Final score", attr: { role: "cell" } });
	total.createDiv({ attr: { role: "cell" } });
	total.createDiv({ attr: { role: "cell" } });
	total.createDiv({ attr: { role: "cell" } });
	total.createDiv({ cls: "vaultheat-num is-strong", text: `= ${formatScore(doc.components.final)}`, attr: { role: "cell" } });
}

/** What a note's score counts beyond its best passage: its other passages, its coverage. */
export function passageSentence(doc: Pick<ExplainDoc, "score" | "components" | "content_score" | "coverage">): string {
	const coverage = doc.coverage ?? 0;
	const others = (doc.content_score ?? doc.score) - doc.components.final - coverage;
	const counts: string[] = [];
	if (Math.abs(others) >= 0.005) counts.push("its other matching passages");
	if (doc.coverage !== undefined) counts.push(`how much of the open note it speaks to (coverage ${formatScore(coverage)})`);
	if (!counts.length) counts.push("its other matching passages");
	return `The note's score also counts ${counts.join(" and ")}; the best passage alone scores ${formatScore(doc.components.final)}.`;
}

function renderPath(parent: HTMLElement, doc: ExplainDoc, open: (path: string, line: number) => void): void {
	const section = parent.createDiv({ cls: "vaultheat-explain-section" });
	section.createDiv({ cls: "vaultheat-explain-heading", text: "How it was found" });
	if (!doc.seed) {
		section.createDiv({
			cls: "vaultheat-explain-note",
			text: "Found directly: the score comes from matching this passage, with no graph path.",
		});
		return;
	}
	const steps = section.createEl("ol", { cls: "vaultheat-path" });
	const seed = doc.seed;
	const first = step(steps, "is-seed", stageLabel(seed.stage), seed.path, seed.heading_path, seed.text, open);
	first.createDiv({ cls: "vaultheat-step-score", text: `Where the search started (raw score ${seed.seed_score.toFixed(3)})` });
	if (doc.hops.length === 0) {
		steps.createEl("li", {
			cls: "vaultheat-edge is-direct",
			text: seed.chunk_id === doc.chunk_id ? "This passage itself matched." : "No hops: the seed is the result.",
		});
		return;
	}
	doc.hops.forEach((hop, i) => {
		const edge = steps.createEl("li", { cls: "vaultheat-edge" });
		const arrow = edge.createSpan({ cls: "vaultheat-edge-arrow", attr: { "aria-hidden": "true" } });
		setIcon(arrow, "arrow-down");
		edge.createSpan({ cls: "vaultheat-edge-type", text: edgeLabel(hop.edge) });
		edge.appendText(" ");
		edge.createSpan({
			cls: "vaultheat-edge-math",
			text: `weight ${hop.edge_weight.toFixed(2)} × type ${hop.type_weight.toFixed(2)} × decay ${hop.decay.toFixed(2)} → heat ${hop.heat.toFixed(3)}`,
		});
		const last = i === doc.hops.length - 1;
		step(steps, last ? "is-result" : "", last ? "Result" : `Hop ${hop.hop}`, hop.path, [], hop.text, open);
	});
}

function step(
	list: HTMLElement,
	cls: string,
	label: string,
	path: string,
	headings: readonly string[],
	text: string,
	open: (path: string, line: number) => void,
): HTMLElement {
	const li = list.createEl("li", { cls: `vaultheat-step ${cls}`.trim() });
	const head = li.createDiv({ cls: "vaultheat-step-head" });
	head.createSpan({ cls: "vaultheat-step-label", text: label });
	const link = head.createEl("a", { cls: "vaultheat-step-note", text: basename(path), attr: { href: "#", title: path } });
	link.addEventListener("click", (evt) => {
		evt.preventDefault();
		open(path, 1);
	});
	const trail = headingTrail(headings, basename(path));
	if (trail) li.createDiv({ cls: "vaultheat-row-heading", text: trail });
	const snippet = toSnippet(text, 260);
	if (snippet) li.createDiv({ cls: "vaultheat-step-snippet", text: snippet });
	return li;
}
