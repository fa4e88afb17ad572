/**
 * Reconnect delays: exponential with a cap, plus a little deterministic jitter so two windows
 * of one vault do not knock on the sidecar in lockstep. Pure, so the sequence is tested as a table.
 */

export interface BackoffPolicy {
	initialMs: number;
	factor: number;
	maxMs: number;
	/** Fraction of the delay added as jitter, 0..1. */
	jitter: number;
}

export const RECONNECT: BackoffPolicy = { initialMs: 1000, factor: 2, maxMs: 30000, jitter: 0.1 };
/** While a sidecar we just started loads its model: poll often, for a while. */
export const STARTUP: BackoffPolicy = { initialMs: 250, factor: 1.5, maxMs: 2000, jitter: 0 };

/** Delay before retry number `attempt` (0-based); `random` in [0, 1). */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random = 0): number {
	const base = Math.min(policy.maxMs, policy.initialMs * Math.pow(policy.factor, Math.max(0, attempt)));
	return Math.round(base * (1 + policy.jitter * random));
}

/** Restarts of a sidecar we started that exited by itself: 1 s, 2 s, 4 s … up to 30 s. */
export const CRASH_RESTART: BackoffPolicy = { initialMs: 1000, factor: 2, maxMs: 30000, jitter: 0 };
/** Restarts in a row (each one exiting again before it stayed up STABLE_MS) before giving up. */
export const MAX_RESTARTS = 5;
/** Up this long, a sidecar counts as stable: the next crash starts the back-off over. */
export const STABLE_MS = 60000;
