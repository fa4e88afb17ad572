import { describe, expect, it } from "vitest";
import { LatestRunner } from "../../src/state/latest";
import { deferred, flush, ManualClock } from "../helpers";

function setup() {
	const clock = new ManualClock();
	const calls: { input: string; d: ReturnType<typeof deferred<string>> }[] = [];
	const results: [string, string, boolean][] = [];
	const errors: [string, boolean][] = [];
	const busy: boolean[] = [];
	const runner = new LatestRunner<string, string>(
		(input) => {
			const d = deferred<string>();
			calls.push({ input, d });
			return d.promise;
		},
		{
			onResult: (i, o, latest) => results.push([i, o, latest]),
			onError: (i, _e, latest) => errors.push([i, latest]),
			onBusy: (b) => busy.push(b),
		},
		clock,
	);
	return { clock, calls, results, errors, busy, runner };
}

describe("LatestRunner", () => {
	it("debounces: only the last input within the delay runs", async () => {
		const { clock, calls, runner } = setup();
		runner.submit("a", 500);
		await clock.advance(300);
		runner.submit("ab", 500);
		await clock.advance(300);
		runner.submit("abc", 500);
		await clock.advance(499);
		expect(calls).toHaveLength(0);
		await clock.advance(1);
		expect(calls.map((c) => c.input)).toEqual(["abc"]);
	});

	it("runs at once with no delay and reports busy around it", async () => {
		const { calls, results, busy, runner } = setup();
		runner.submit("x", 0);
		expect(calls).toHaveLength(1);
		expect(runner.busy).toBe(true);
		calls[0]?.d.resolve("X");
		await flush();
		expect(results).toEqual([["x", "X", true]]);
		expect(busy).toEqual([true, false]);
		expect(runner.busy).toBe(false);
	});

	it("keeps one request in flight and sends only the newest waiting input", async () => {
		const { calls, results, runner } = setup();
		runner.submit("1", 0);
		runner.submit("2", 0);
		runner.submit("3", 0);
		expect(calls.map((c) => c.input)).toEqual(["1"]);
		calls[0]?.d.resolve("r1");
		await flush();
		expect(calls.map((c) => c.input)).toEqual(["1", "3"]);
		expect(results).toEqual([["1", "r1", false]]);
		calls[1]?.d.resolve("r3");
		await flush();
		expect(results).toEqual([
			["1", "r1", false],
			["3", "r3", true],
		]);
	});

	it("cancel() drops the pending timer and makes the running answer stale", async () => {
		const { clock, calls, results, errors, runner } = setup();
		runner.submit("a", 0);
		runner.submit("b", 100);
		runner.cancel();
		await clock.advance(200);
		expect(calls.map((c) => c.input)).toEqual(["a"]);
		calls[0]?.d.resolve("A");
		await flush();
		expect(results).toEqual([]);
		expect(errors).toEqual([]);
		expect(runner.busy).toBe(false);
	});

	it("delivers errors of the latest input and drops stale ones", async () => {
		const { calls, errors, runner } = setup();
		runner.submit("a", 0);
		runner.submit("b", 0);
		calls[0]?.d.reject(new Error("boom"));
		await flush();
		expect(errors).toEqual([["a", false]]);
		calls[1]?.d.reject(new Error("boom"));
		await flush();
		expect(errors).toEqual([
			["a", false],
			["b", true],
		]);
	});

	it("a run function that throws synchronously is an error, not a crash", async () => {
		const clock = new ManualClock();
		const errors: string[] = [];
		const runner = new LatestRunner<string, string>(
			() => {
				throw new Error("sync");
			},
			{ onResult: () => undefined, onError: (_i, e) => errors.push((e as Error).message) },
			clock,
		);
		runner.submit("x", 0);
		await flush();
		expect(errors).toEqual(["sync"]);
	});

	it("does nothing after dispose()", async () => {
		const { clock, calls, runner } = setup();
		runner.dispose();
		runner.submit("x", 0);
		runner.submit("y", 10);
		await clock.advance(20);
		expect(calls).toHaveLength(0);
	});
});
