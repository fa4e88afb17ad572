/**
 * A few Lucide icons (ISC licence) drawn as Obsidian draws them (`svg.svg-icon.lucide-NAME`),
 * so e2e screenshots show real glyphs. Unknown names get a small circle.
 */

type Shape = [string, Record<string, string>];
const p = (d: string): Shape => ["path", { d }];
const circle = (cx: number, cy: number, r: number): Shape => ["circle", { cx: String(cx), cy: String(cy), r: String(r) }];

const ICONS: Record<string, Shape[]> = {
	flame: [p("M8.5 14.5A2.5 2.5 0 0 0 11 12c0-1.38-.5-2-1-3-1.072-2.143-.224-4.054 2-6 .5 2.5 2 4.9 4 6.5 2 1.6 3 3.5 3 5.5a7 7 0 1 1-14 0c0-1.153.433-2.294 1-3a2.5 2.5 0 0 0 2.5 2.5z")],
	link: [p("M10 13a5 5 0 0 0 7.54.54l3-3a5 5 0 0 0-7.07-7.07l-1.72 1.71"), p("M14 11a5 5 0 0 0-7.54-.54l-3 3a5 5 0 0 0 7.07 7.07l1.71-1.71")],
	"help-circle": [circle(12, 12, 10), p("M9.09 9a3 3 0 0 1 5.83 1c0 2-3 3-3 3"), p("M12 17h.01")],
	"refresh-cw": [p("M3 12a9 9 0 0 1 9-9 9.75 9.75 0 0 1 6.74 2.74L21 8"), p("M21 3v5h-5"), p("M21 12a9 9 0 0 1-9 9 9.75 9.75 0 0 1-6.74-2.74L3 16"), p("M8 16H3v5")],
	"alert-triangle": [p("m21.73 18-8-14a2 2 0 0 0-3.48 0l-8 14A2 2 0 0 0 4 21h16a2 2 0 0 0 1.73-3Z"), p("M12 9v4"), p("M12 17h.01")],
	loader: [p("M12 2v4"), p("m16.2 7.8 2.9-2.9"), p("M18 12h4"), p("m16.2 16.2 2.9 2.9"), p("M12 18v4"), p("m4.9 19.1 2.9-2.9"), p("M2 12h4"), p("m4.9 4.9 2.9 2.9")],
	info: [circle(12, 12, 10), p("M12 16v-4"), p("M12 8h.01")],
	copy: [["rect", { width: "14", height: "14", x: "8", y: "8", rx: "2", ry: "2" }], p("M4 16c-1.1 0-2-.9-2-2V4c0-1.1.9-2 2-2h10c1.1 0 2 .9 2 2")],
	"arrow-down": [p("M12 5v14"), p("m19 12-7 7-7-7")],
	x: [p("M18 6 6 18"), p("m6 6 12 12")],
	search: [circle(11, 11, 8), p("m21 21-4.3-4.3")],
	"file-text": [p("M15 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V7Z"), p("M14 2v4a2 2 0 0 0 2 2h4"), p("M10 9H8"), p("M16 13H8"), p("M16 17H8")],
	folder: [p("M20 20a2 2 0 0 0 2-2V8a2 2 0 0 0-2-2h-7.9a2 2 0 0 1-1.69-.9L9.6 3.9A2 2 0 0 0 7.93 3H4a2 2 0 0 0-2 2v13a2 2 0 0 0 2 2Z")],
	"chevron-right": [p("m9 18 6-6-6-6")],
	// Lucide "unlink".
	unlink: [p("m18.84 12.25 1.72-1.71h-.02a5.004 5.004 0 0 0-.12-7.07 5.006 5.006 0 0 0-6.95 0l-1.72 1.71"), p("m5.17 11.75-1.71 1.71a5.004 5.004 0 0 0 .12 7.07 5.006 5.006 0 0 0 6.95 0l1.71-1.71"), p("M8 2v3"), p("M2 8h3"), p("M16 19v3"), p("M19 16h3")],
	settings: [circle(12, 12, 3), p("M12 1v4M12 19v4M4.2 4.2l2.8 2.8M17 17l2.8 2.8M1 12h4M19 12h4M4.2 19.8 7 17M17 7l2.8-2.8")],
};

export function setIcon(parent: HTMLElement, name: string): void {
	parent.querySelectorAll(":scope > svg.svg-icon").forEach((el) => el.remove());
	const doc = parent.ownerDocument;
	const svg = doc.createElementNS("http://www.w3.org/2000/svg", "svg");
	for (const [k, v] of Object.entries({
		xmlns: "http://www.w3.org/2000/svg",
		width: "24",
		height: "24",
		viewBox: "0 0 24 24",
		fill: "none",
		stroke: "currentColor",
		"stroke-width": "2",
		"stroke-linecap": "round",
		"stroke-linejoin": "round",
		class: `svg-icon lucide-${name}`,
	})) {
		svg.setAttribute(k, v);
	}
	for (const [tag, attrs] of ICONS[name] ?? [circle(12, 12, 4)]) {
		const shape = doc.createElementNS("http://www.w3.org/2000/svg", tag);
		for (const [k, v] of Object.entries(attrs)) shape.setAttribute(k, v);
		svg.appendChild(shape);
	}
	parent.appendChild(svg);
}

export function setTooltip(el: HTMLElement, tooltip: string, _options?: unknown): void {
	el.setAttribute("aria-label", tooltip);
	el.setAttribute("data-tooltip", tooltip);
}
