/** Events and Component with Obsidian's semantics: register* callbacks run on unload. */

export interface EventRef {
	e: Events;
	name: string;
	fn: (...args: unknown[]) => unknown;
}

export class Events {
	private handlers = new Map<string, EventRef[]>();

	// eslint-disable-next-line @typescript-eslint/no-explicit-any -- subclasses narrow it with overloads
	on(name: string, callback: (...args: any[]) => unknown, ctx?: unknown): EventRef {
		const fn = (ctx ? callback.bind(ctx) : callback) as (...args: unknown[]) => unknown;
		const ref: EventRef = { e: this, name, fn };
		const list = this.handlers.get(name) ?? [];
		list.push(ref);
		this.handlers.set(name, list);
		return ref;
	}

	off(name: string, callback: (...args: unknown[]) => unknown): void {
		const list = this.handlers.get(name);
		if (list) this.handlers.set(name, list.filter((r) => r.fn !== callback));
	}

	offref(ref: EventRef): void {
		const list = this.handlers.get(ref.name);
		if (list) this.handlers.set(ref.name, list.filter((r) => r !== ref));
	}

	trigger(name: string, ...data: unknown[]): void {
		for (const ref of [...(this.handlers.get(name) ?? [])]) ref.fn(...data);
	}

	tryTrigger(evt: EventRef, args: unknown[]): void {
		evt.fn(...args);
	}

	/** Stub-only: how many listeners `name` has (tests check cleanup with it). */
	listenerCount(name: string): number {
		return this.handlers.get(name)?.length ?? 0;
	}
}

export class Component {
	_loaded = false;
	private cleanups: (() => void)[] = [];
	private children: Component[] = [];

	load(): void {
		if (this._loaded) return;
		this._loaded = true;
		void this.onload();
		for (const child of this.children) child.load();
	}

	onload(): void | Promise<void> {}

	unload(): void {
		if (!this._loaded) return;
		this._loaded = false;
		for (const child of this.children.splice(0)) child.unload();
		for (const cleanup of this.cleanups.splice(0).reverse()) cleanup();
		this.onunload();
	}

	onunload(): void {}

	addChild<T extends Component>(component: T): T {
		this.children.push(component);
		if (this._loaded) component.load();
		return component;
	}

	removeChild<T extends Component>(component: T): T {
		this.children = this.children.filter((c) => c !== component);
		component.unload();
		return component;
	}

	register(cb: () => unknown): void {
		this.cleanups.push(() => {
			cb();
		});
	}

	registerEvent(ref: EventRef): void {
		this.register(() => ref.e.offref(ref));
	}

	registerDomEvent(el: EventTarget, type: string, callback: (evt: Event) => unknown, options?: boolean | AddEventListenerOptions): void {
		el.addEventListener(type, callback, options);
		this.register(() => el.removeEventListener(type, callback, options));
	}

	registerInterval(id: number): number {
		this.register(() => window.clearInterval(id));
		return id;
	}

	/** Stub-only: registered cleanups not yet run. */
	get pendingCleanups(): number {
		return this.cleanups.length;
	}
}
