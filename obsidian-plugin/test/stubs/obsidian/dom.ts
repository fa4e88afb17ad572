/**
 * Obsidian's DOM helpers (createEl, setText, addClass, ...) installed on the prototypes of
 * whatever DOM runs the tests: happy-dom in vitest, Chromium in the e2e page. Only the helpers
 * the plugin uses, with Obsidian's semantics (a string `o` is the class; `cls` may hold spaces).
 */

interface ElInfo {
	cls?: string | string[];
	text?: string | DocumentFragment;
	attr?: Record<string, string | number | boolean | null>;
	title?: string;
	parent?: Node;
	value?: string;
	type?: string;
	prepend?: boolean;
	placeholder?: string;
	href?: string;
}

function classesOf(cls: string | string[] | undefined): string[] {
	if (!cls) return [];
	return (Array.isArray(cls) ? cls : [cls]).flatMap((c) => c.split(/\s+/)).filter(Boolean);
}

function applyInfo(el: Element, o: ElInfo | string | undefined, parent: Node | null): void {
	const info: ElInfo = typeof o === "string" ? { cls: o } : (o ?? {});
	const classes = classesOf(info.cls);
	if (classes.length > 0) el.classList.add(...classes);
	if (info.text !== undefined) {
		if (typeof info.text === "string") el.textContent = info.text;
		else el.appendChild(info.text);
	}
	for (const [key, value] of Object.entries(info.attr ?? {})) {
		if (value === null || value === false) continue;
		el.setAttribute(key, value === true ? "" : String(value));
	}
	if (info.title !== undefined) el.setAttribute("title", info.title);
	if (info.value !== undefined) (el as HTMLInputElement).value = info.value;
	if (info.type !== undefined) el.setAttribute("type", info.type);
	if (info.placeholder !== undefined) el.setAttribute("placeholder", info.placeholder);
	if (info.href !== undefined) el.setAttribute("href", info.href);
	const target = info.parent ?? parent;
	if (target) {
		if (info.prepend) target.insertBefore(el, target.firstChild);
		else target.appendChild(el);
	}
}

function docOf(node: Node): Document {
	return node.ownerDocument ?? (node as Document);
}

type Proto = Record<string, unknown>;

export function installDomHelpers(win: Window & typeof globalThis): void {
	const nodeProto = win.Node.prototype as unknown as Proto;
	if (nodeProto.__vaultheatStub) return;
	nodeProto.__vaultheatStub = true;
	const elementProto = win.Element.prototype as unknown as Proto;
	const htmlProto = win.HTMLElement.prototype as unknown as Proto;

	nodeProto.createEl = function (this: Node, tag: string, o?: ElInfo | string, cb?: (el: HTMLElement) => void) {
		const el = docOf(this).createElement(tag);
		applyInfo(el, o, this);
		cb?.(el);
		return el;
	};
	nodeProto.createDiv = function (this: Node, o?: ElInfo | string, cb?: (el: HTMLElement) => void) {
		return (this as unknown as { createEl: (t: string, o?: ElInfo | string, cb?: (el: HTMLElement) => void) => HTMLElement }).createEl("div", o, cb);
	};
	nodeProto.createSpan = function (this: Node, o?: ElInfo | string, cb?: (el: HTMLElement) => void) {
		return (this as unknown as { createEl: (t: string, o?: ElInfo | string, cb?: (el: HTMLElement) => void) => HTMLElement }).createEl("span", o, cb);
	};
	nodeProto.createSvg = function (this: Node, tag: string, o?: ElInfo | string, cb?: (el: Element) => void) {
		const el = docOf(this).createElementNS("http://www.w3.org/2000/svg", tag);
		applyInfo(el, o, this);
		cb?.(el);
		return el;
	};
	nodeProto.empty = function (this: Node) {
		while (this.firstChild) this.removeChild(this.firstChild);
	};
	nodeProto.detach = function (this: Node) {
		this.parentNode?.removeChild(this);
	};
	nodeProto.appendText = function (this: Node, text: string) {
		this.appendChild(docOf(this).createTextNode(text));
	};
	nodeProto.instanceOf = function (this: Node, type: new () => unknown) {
		return this instanceof type;
	};
	nodeProto.indexOf = function (this: Node, other: Node) {
		return Array.prototype.indexOf.call(this.childNodes, other);
	};

	elementProto.getText = function (this: Element) {
		return this.textContent ?? "";
	};
	elementProto.setText = function (this: Element, value: string | DocumentFragment) {
		if (typeof value === "string") this.textContent = value;
		else {
			this.textContent = "";
			this.appendChild(value);
		}
	};
	elementProto.addClass = function (this: Element, ...classes: string[]) {
		this.classList.add(...classesOf(classes));
	};
	elementProto.addClasses = function (this: Element, classes: string[]) {
		this.classList.add(...classesOf(classes));
	};
	elementProto.removeClass = function (this: Element, ...classes: string[]) {
		this.classList.remove(...classesOf(classes));
	};
	elementProto.removeClasses = function (this: Element, classes: string[]) {
		this.classList.remove(...classesOf(classes));
	};
	elementProto.toggleClass = function (this: Element, classes: string | string[], value: boolean) {
		for (const c of classesOf(classes)) this.classList.toggle(c, value);
	};
	elementProto.hasClass = function (this: Element, cls: string) {
		return this.classList.contains(cls);
	};
	elementProto.setAttr = function (this: Element, name: string, value: string | number | boolean | null) {
		if (value === null) this.removeAttribute(name);
		else this.setAttribute(name, String(value));
	};
	elementProto.setAttrs = function (this: Element, attrs: Record<string, string | number | boolean | null>) {
		for (const [k, v] of Object.entries(attrs)) (this as unknown as { setAttr: (n: string, v: unknown) => void }).setAttr(k, v);
	};
	elementProto.getAttr = function (this: Element, name: string) {
		return this.getAttribute(name);
	};
	elementProto.find = function (this: Element, selector: string) {
		return this.querySelector(selector);
	};
	elementProto.findAll = function (this: Element, selector: string) {
		return Array.from(this.querySelectorAll(selector));
	};
	elementProto.matchParent = function (this: Element, selector: string) {
		return this.closest(selector);
	};

	htmlProto.show = function (this: HTMLElement) {
		this.style.removeProperty("display");
	};
	htmlProto.hide = function (this: HTMLElement) {
		this.style.display = "none";
	};
	htmlProto.toggle = function (this: HTMLElement, show: boolean) {
		if (show) this.style.removeProperty("display");
		else this.style.display = "none";
	};
	htmlProto.isShown = function (this: HTMLElement) {
		return this.style.display !== "none";
	};
	htmlProto.setCssProps = function (this: HTMLElement, props: Record<string, string>) {
		for (const [k, v] of Object.entries(props)) this.style.setProperty(k, v);
	};
	htmlProto.setCssStyles = function (this: HTMLElement, styles: Record<string, string>) {
		Object.assign(this.style, styles);
	};
	htmlProto.onClickEvent = function (this: HTMLElement, listener: (ev: MouseEvent) => void) {
		this.addEventListener("click", listener);
	};

	const g = win as unknown as Record<string, unknown>;
	const doc = win.document;
	g.activeDocument = doc;
	g.activeWindow = win;
	g.createEl = (tag: string, o?: ElInfo | string, cb?: (el: HTMLElement) => void) => {
		const el = doc.createElement(tag);
		applyInfo(el, o, null);
		cb?.(el);
		return el;
	};
	g.createDiv = (o?: ElInfo | string, cb?: (el: HTMLElement) => void) => (g.createEl as (t: string, o?: ElInfo | string, cb?: (el: HTMLElement) => void) => HTMLElement)("div", o, cb);
	g.createSpan = (o?: ElInfo | string, cb?: (el: HTMLElement) => void) => (g.createEl as (t: string, o?: ElInfo | string, cb?: (el: HTMLElement) => void) => HTMLElement)("span", o, cb);
	g.createFragment = (cb?: (f: DocumentFragment) => void) => {
		const f = doc.createDocumentFragment();
		cb?.(f);
		return f;
	};
	g.sleep = (ms: number) => new Promise((resolve) => win.setTimeout(resolve, ms));
	g.nextFrame = () => new Promise((resolve) => win.requestAnimationFrame(() => resolve(undefined)));
}
