/** The app version the stub behaves as: Obsidian 1.13 (whose sliders show their own value). */
let version = "1.13.1";

export function apiVersionNow(): string {
	return version;
}

/** Stub-only: behave as another app version (a test of an older app). */
export function setApiVersion(next: string): void {
	version = next;
}

export function requireApiVersion(wanted: string): boolean {
	const parts = (v: string) => v.split(".").map((n) => Number(n) || 0);
	const [have, want] = [parts(version), parts(wanted)];
	for (let i = 0; i < Math.max(have.length, want.length); i++) {
		const d = (have[i] ?? 0) - (want[i] ?? 0);
		if (d !== 0) return d > 0;
	}
	return true;
}
