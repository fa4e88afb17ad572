/**
 * Timers behind an interface so debouncing, staleness and backoff are tested with a manual
 * clock instead of real time. Production uses window timers (popout-window safe, and what
 * Obsidian's review asks for).
 */

export interface Clock {
	setTimeout(callback: () => void, ms: number): number;
	clearTimeout(id: number): void;
	now(): number;
}

export const windowClock: Clock = {
	setTimeout: (callback, ms) => window.setTimeout(callback, ms),
	clearTimeout: (id) => window.clearTimeout(id),
	now: () => Date.now(),
};
