/** A child process for SidecarManager tests: records the signals it gets, exits when told to. */
import { EventEmitter } from "node:events";
import type { ChildLike } from "../src/sidecar";

export class FakeChild extends EventEmitter implements ChildLike {
	exitCode: number | null = null;
	stdout = new EventEmitter();
	stderr = new EventEmitter();
	signals: (string | number | undefined)[] = [];

	constructor(
		readonly pid = 4242,
		/** Exit (code 0) as soon as it is signalled, like `vaultheat serve` on SIGTERM. */
		private readonly exitOnKill = false,
	) {
		super();
	}

	kill(signal?: NodeJS.Signals | number): boolean {
		this.signals.push(signal);
		if (this.exitOnKill) {
			queueMicrotask(() => {
				this.exitCode = 0;
				this.emit("exit", 0, null);
			});
		}
		return true;
	}
}
