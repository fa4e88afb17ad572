/**
 * Obsidian's context menu, as markup the e2e page can click (`.menu .menu-item`). Stub-only:
 * `Menu.lastShown` is the menu shown most recently, for the unit tests.
 */
export class MenuItem {
	title = "";
	icon = "";
	section = "";
	disabled = false;
	handler: ((evt: MouseEvent | KeyboardEvent) => unknown) | null = null;
	setTitle(title: string | DocumentFragment): this {
		this.title = typeof title === "string" ? title : (title.textContent ?? "");
		return this;
	}
	setIcon(icon: string | null): this {
		this.icon = icon ?? "";
		return this;
	}
	setSection(section: string): this {
		this.section = section;
		return this;
	}
	setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		return this;
	}
	onClick(handler: (evt: MouseEvent | KeyboardEvent) => unknown): this {
		this.handler = handler;
		return this;
	}
}

export class Menu {
	static lastShown: Menu | null = null;
	items: (MenuItem | "separator")[] = [];
	el: HTMLElement | null = null;

	addItem(cb: (item: MenuItem) => unknown): this {
		const item = new MenuItem();
		cb(item);
		this.items.push(item);
		return this;
	}
	addSeparator(): this {
		this.items.push("separator");
		return this;
	}
	/** Stub-only: click the item titled `title`. */
	click(title: string): void {
		const item = this.items.find((i): i is MenuItem => i !== "separator" && i.title === title);
		if (!item) throw new Error(`no menu item "${title}": ${this.titles().join(", ")}`);
		this.hide();
		item.handler?.(new MouseEvent("click"));
	}
	titles(): string[] {
		return this.items.filter((i): i is MenuItem => i !== "separator").map((i) => i.title);
	}
	showAtMouseEvent(evt: MouseEvent): this {
		return this.showAtPosition({ x: evt.clientX, y: evt.clientY });
	}
	showAtPosition(pos: { x: number; y: number }): this {
		Menu.lastShown?.hide();
		Menu.lastShown = this;
		const doc = activeDocument;
		const el = doc.createElement("div");
		el.className = "menu";
		el.style.left = `${pos.x}px`;
		el.style.top = `${pos.y}px`;
		for (const item of this.items) {
			if (item === "separator") {
				el.appendChild(Object.assign(doc.createElement("div"), { className: "menu-separator" }));
				continue;
			}
			const row = doc.createElement("div");
			row.className = "menu-item";
			row.textContent = item.title;
			row.addEventListener("click", (evt) => {
				this.hide();
				item.handler?.(evt);
			});
			el.appendChild(row);
		}
		doc.body.appendChild(el);
		this.el = el;
		return this;
	}
	hide(): this {
		this.el?.remove();
		this.el = null;
		if (Menu.lastShown === this) Menu.lastShown = null;
		return this;
	}
}
