/**
 * A value with subscribers: the whole of the plugin's state management. Views subscribe and
 * re-render; controllers replace the value (never mutate it), so "did it change" is `!==`.
 */

export type Listener<T> = (value: T, previous: T) => void;

export class Store<T> {
	private value: T;
	private readonly listeners = new Set<Listener<T>>();

	constructor(initial: T) {
		this.value = initial;
	}

	get(): T {
		return this.value;
	}

	set(next: T): void {
		if (next === this.value) return;
		const previous = this.value;
		this.value = next;
		for (const listener of [...this.listeners]) listener(next, previous);
	}

	update(change: (value: T) => T): void {
		this.set(change(this.value));
	}

	/** Returns the unsubscribe function (hand it to Component.register). */
	subscribe(listener: Listener<T>): () => void {
		this.listeners.add(listener);
		return () => {
			this.listeners.delete(listener);
		};
	}
}
