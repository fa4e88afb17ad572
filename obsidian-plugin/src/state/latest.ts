/**
 * "Latest wins" for queries fired while the user types.
 *
 * Each `submit` supersedes everything before it: a pending debounce timer is cancelled, and at
 * most one request is in flight — a newer input waits for it and only the newest waiting one is
 * sent (typing fast never queues a backlog on the sidecar). Every input gets a token; an answer
 * is delivered only if no newer answer was delivered before it, and is marked `latest` when no
 * newer input was submitted since. `requestUrl` cannot be aborted, so stale answers are ignored
 * rather than cancelled.
 */
import type { Clock } from "./clock";

export interface LatestHandlers<I, O> {
	/** An answer; `latest` is false when a newer input is already waiting or running. */
	onResult(input: I, output: O, latest: boolean): void;
	onError(input: I, error: unknown, latest: boolean): void;
	/** Busy changed: a timer is pending or a request is in flight. */
	onBusy?(busy: boolean): void;
}

export class LatestRunner<I, O> {
	private readonly run: (input: I) => Promise<O>;
	private readonly handlers: LatestHandlers<I, O>;
	private readonly clock: Clock;
	private seq = 0;
	private delivered = 0;
	private timer: number | null = null;
	private inFlight = false;
	private waiting: { token: number; input: I } | null = null;
	private disposed = false;
	private wasBusy = false;
	/** Answers to inputs submitted before the last cancel() are never delivered. */
	private cancelledUpTo = 0;

	constructor(run: (input: I) => Promise<O>, handlers: LatestHandlers<I, O>, clock: Clock) {
		this.run = run;
		this.handlers = handlers;
		this.clock = clock;
	}

	get busy(): boolean {
		return this.timer !== null || this.inFlight || this.waiting !== null;
	}

	/** Runs `input` after `delayMs` of quiet (0 = now), superseding every earlier input. */
	submit(input: I, delayMs: number): void {
		this.submitLazy(() => input, delayMs);
	}

	/**
	 * As `submit`, but the input is made only when the pause is over: typing must not read and
	 * encode a whole note on every keystroke when only the last one is sent.
	 */
	submitLazy(make: () => I, delayMs: number): void {
		if (this.disposed) return;
		const token = ++this.seq;
		this.clearTimer();
		if (delayMs <= 0) {
			this.fire(token, make());
		} else {
			this.timer = this.clock.setTimeout(() => {
				this.timer = null;
				this.fire(token, make());
			}, delayMs);
		}
		this.notifyBusy();
	}

	/** Drops the pending input and makes every running request stale. */
	cancel(): void {
		this.cancelledUpTo = ++this.seq;
		this.clearTimer();
		this.waiting = null;
		this.notifyBusy();
	}

	dispose(): void {
		this.cancel();
		this.disposed = true;
	}

	private clearTimer(): void {
		if (this.timer !== null) {
			this.clock.clearTimeout(this.timer);
			this.timer = null;
		}
	}

	private fire(token: number, input: I): void {
		if (this.inFlight) {
			this.waiting = { token, input };
			return;
		}
		this.start(token, input);
	}

	private start(token: number, input: I): void {
		this.inFlight = true;
		this.notifyBusy();
		let promise: Promise<O>;
		try {
			promise = this.run(input);
		} catch (err) {
			promise = Promise.reject(err instanceof Error ? err : new Error(String(err)));
		}
		promise.then(
			(output) => this.settle(token, input, { ok: true, output }),
			(error: unknown) => this.settle(token, input, { ok: false, error }),
		);
	}

	private settle(
		token: number,
		input: I,
		outcome: { ok: true; output: O } | { ok: false; error: unknown },
	): void {
		this.inFlight = false;
		const next = this.waiting;
		this.waiting = null;
		if (next) this.start(next.token, next.input);
		if (!this.disposed && token > this.delivered && token > this.cancelledUpTo) {
			this.delivered = token;
			const latest = token === this.seq;
			if (outcome.ok) this.handlers.onResult(input, outcome.output, latest);
			else this.handlers.onError(input, outcome.error, latest);
		}
		this.notifyBusy();
	}

	private notifyBusy(): void {
		const busy = this.busy;
		if (busy !== this.wasBusy) {
			this.wasBusy = busy;
			this.handlers.onBusy?.(busy);
		}
	}
}
