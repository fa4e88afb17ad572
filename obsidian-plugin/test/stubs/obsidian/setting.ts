/** Setting rows and their controls, with Obsidian's markup (setting-item, -info, -control). */
import type { App } from "./app";
import type { Plugin } from "./app";
import { requireApiVersion } from "./version";

abstract class ValueComponent<T> {
	disabled = false;
	protected changeHandlers: ((value: T) => unknown)[] = [];
	abstract getValue(): T;
	abstract setValue(value: T): this;
	onChange(callback: (value: T) => unknown): this {
		this.changeHandlers.push(callback);
		return this;
	}
	protected emit(): void {
		for (const h of this.changeHandlers) h(this.getValue());
	}
	setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		return this;
	}
}

export class TextComponent extends ValueComponent<string> {
	inputEl: HTMLInputElement;
	constructor(containerEl: HTMLElement) {
		super();
		this.inputEl = containerEl.ownerDocument.createElement("input");
		this.inputEl.type = "text";
		this.inputEl.spellcheck = false;
		containerEl.appendChild(this.inputEl);
		this.inputEl.addEventListener("input", () => this.emit());
	}
	getValue(): string {
		return this.inputEl.value;
	}
	setValue(value: string): this {
		this.inputEl.value = value;
		return this;
	}
	setPlaceholder(placeholder: string): this {
		this.inputEl.placeholder = placeholder;
		return this;
	}
	override setDisabled(disabled: boolean): this {
		this.inputEl.disabled = disabled;
		return super.setDisabled(disabled);
	}
}

export class TextAreaComponent extends ValueComponent<string> {
	inputEl: HTMLTextAreaElement;
	constructor(containerEl: HTMLElement) {
		super();
		this.inputEl = containerEl.ownerDocument.createElement("textarea");
		containerEl.appendChild(this.inputEl);
		this.inputEl.addEventListener("input", () => this.emit());
	}
	getValue(): string {
		return this.inputEl.value;
	}
	setValue(value: string): this {
		this.inputEl.value = value;
		return this;
	}
	setPlaceholder(placeholder: string): this {
		this.inputEl.placeholder = placeholder;
		return this;
	}
}

export class ToggleComponent extends ValueComponent<boolean> {
	toggleEl: HTMLElement;
	private value = false;
	constructor(containerEl: HTMLElement) {
		super();
		this.toggleEl = containerEl.ownerDocument.createElement("div");
		this.toggleEl.className = "checkbox-container";
		this.toggleEl.setAttribute("role", "switch");
		this.toggleEl.tabIndex = 0;
		containerEl.appendChild(this.toggleEl);
		this.toggleEl.addEventListener("click", () => {
			if (this.disabled) return;
			this.setValue(!this.value);
			this.emit();
		});
	}
	getValue(): boolean {
		return this.value;
	}
	setValue(value: boolean): this {
		this.value = value;
		this.toggleEl.classList.toggle("is-enabled", value);
		this.toggleEl.setAttribute("aria-checked", String(value));
		return this;
	}
	override setDisabled(disabled: boolean): this {
		this.toggleEl.classList.toggle("is-disabled", disabled);
		return super.setDisabled(disabled);
	}
}

export class DropdownComponent extends ValueComponent<string> {
	selectEl: HTMLSelectElement;
	constructor(containerEl: HTMLElement) {
		super();
		this.selectEl = containerEl.ownerDocument.createElement("select");
		this.selectEl.className = "dropdown";
		containerEl.appendChild(this.selectEl);
		this.selectEl.addEventListener("change", () => this.emit());
	}
	addOption(value: string, display: string): this {
		const option = this.selectEl.ownerDocument.createElement("option");
		option.value = value;
		option.textContent = display;
		this.selectEl.appendChild(option);
		return this;
	}
	addOptions(options: Record<string, string>): this {
		for (const [v, d] of Object.entries(options)) this.addOption(v, d);
		return this;
	}
	getValue(): string {
		return this.selectEl.value;
	}
	setValue(value: string): this {
		this.selectEl.value = value;
		return this;
	}
}

/** As in Obsidian 1.13: the value is shown inline next to the slider, formatted as asked
 * (an older app version, `setApiVersion`, draws no value). */
export class SliderComponent extends ValueComponent<number> {
	sliderEl: HTMLInputElement;
	/** Stub-only: the app's inline value (1.13 draws it; plugins only format it). */
	readonly valueEl: HTMLElement;
	private format: (value: number) => string = (value) => String(value);
	constructor(containerEl: HTMLElement) {
		super();
		const doc = containerEl.ownerDocument;
		this.valueEl = doc.createElement("span");
		this.valueEl.className = "slider-value";
		this.sliderEl = doc.createElement("input");
		this.sliderEl.type = "range";
		this.sliderEl.className = "slider";
		containerEl.append(this.valueEl, this.sliderEl);
		this.sliderEl.addEventListener("input", () => {
			this.showValue();
			this.emit();
		});
	}
	setLimits(min: number | null, max: number | null, step: number | "any"): this {
		if (min !== null) this.sliderEl.min = String(min);
		if (max !== null) this.sliderEl.max = String(max);
		this.sliderEl.step = String(step);
		return this;
	}
	setInstant(_instant: boolean): this {
		return this;
	}
	/** @deprecated in Obsidian 1.13: the value is always shown inline. */
	setDynamicTooltip(): this {
		return this;
	}
	setDisplayFormat(format: (value: number) => string): this {
		this.format = format;
		this.showValue();
		return this;
	}
	getValuePretty(): string {
		return this.format(this.getValue());
	}
	getValue(): number {
		return Number(this.sliderEl.value);
	}
	setValue(value: number): this {
		this.sliderEl.value = String(value);
		this.showValue();
		return this;
	}
	private showValue(): void {
		this.valueEl.textContent = requireApiVersion("1.13.0") ? this.getValuePretty() : "";
	}
}

export class ButtonComponent {
	buttonEl: HTMLButtonElement;
	constructor(containerEl: HTMLElement) {
		this.buttonEl = containerEl.ownerDocument.createElement("button");
		containerEl.appendChild(this.buttonEl);
	}
	setButtonText(text: string): this {
		this.buttonEl.textContent = text;
		return this;
	}
	setCta(): this {
		this.buttonEl.classList.add("mod-cta");
		return this;
	}
	setDisabled(disabled: boolean): this {
		this.buttonEl.disabled = disabled;
		return this;
	}
	setTooltip(tooltip: string): this {
		this.buttonEl.setAttribute("aria-label", tooltip);
		return this;
	}
	setIcon(icon: string): this {
		this.buttonEl.setAttribute("data-icon", icon);
		return this;
	}
	onClick(callback: (evt: MouseEvent) => unknown): this {
		this.buttonEl.addEventListener("click", (evt) => callback(evt));
		return this;
	}
}

export class Setting {
	settingEl: HTMLElement;
	infoEl: HTMLElement;
	nameEl: HTMLElement;
	descEl: HTMLElement;
	controlEl: HTMLElement;
	components: unknown[] = [];

	constructor(containerEl: HTMLElement) {
		const doc = containerEl.ownerDocument;
		this.settingEl = doc.createElement("div");
		this.settingEl.className = "setting-item";
		this.infoEl = doc.createElement("div");
		this.infoEl.className = "setting-item-info";
		this.nameEl = doc.createElement("div");
		this.nameEl.className = "setting-item-name";
		this.descEl = doc.createElement("div");
		this.descEl.className = "setting-item-description";
		this.infoEl.append(this.nameEl, this.descEl);
		this.controlEl = doc.createElement("div");
		this.controlEl.className = "setting-item-control";
		this.settingEl.append(this.infoEl, this.controlEl);
		containerEl.appendChild(this.settingEl);
	}
	setName(name: string | DocumentFragment): this {
		this.nameEl.textContent = typeof name === "string" ? name : (name.textContent ?? "");
		return this;
	}
	setDesc(desc: string | DocumentFragment): this {
		this.descEl.textContent = typeof desc === "string" ? desc : (desc.textContent ?? "");
		return this;
	}
	setHeading(): this {
		this.settingEl.classList.add("setting-item-heading");
		return this;
	}
	setClass(cls: string): this {
		this.settingEl.classList.add(cls);
		return this;
	}
	setDisabled(disabled: boolean): this {
		this.settingEl.classList.toggle("is-disabled", disabled);
		return this;
	}
	private add<C>(component: C, cb: (c: C) => unknown): this {
		this.components.push(component);
		cb(component);
		return this;
	}
	addText(cb: (c: TextComponent) => unknown): this {
		return this.add(new TextComponent(this.controlEl), cb);
	}
	addTextArea(cb: (c: TextAreaComponent) => unknown): this {
		return this.add(new TextAreaComponent(this.controlEl), cb);
	}
	addToggle(cb: (c: ToggleComponent) => unknown): this {
		return this.add(new ToggleComponent(this.controlEl), cb);
	}
	addDropdown(cb: (c: DropdownComponent) => unknown): this {
		return this.add(new DropdownComponent(this.controlEl), cb);
	}
	addSlider(cb: (c: SliderComponent) => unknown): this {
		return this.add(new SliderComponent(this.controlEl), cb);
	}
	addButton(cb: (c: ButtonComponent) => unknown): this {
		return this.add(new ButtonComponent(this.controlEl), cb);
	}
	addExtraButton(cb: (c: ButtonComponent) => unknown): this {
		return this.add(new ButtonComponent(this.controlEl), cb);
	}
}

export class PluginSettingTab {
	app: App;
	plugin: Plugin;
	containerEl: HTMLElement;
	constructor(app: App, plugin: Plugin) {
		this.app = app;
		this.plugin = plugin;
		this.containerEl = app.document.createElement("div");
		this.containerEl.className = "vertical-tab-content";
	}
	display(): void {}
	hide(): void {
		this.containerEl.textContent = "";
	}
}
