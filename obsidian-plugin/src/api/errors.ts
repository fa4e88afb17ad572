/**
 * The one error type the client throws. `kind` says where it failed, so the views can say what
 * to do: `unreachable` (nothing listening: start the sidecar), `timeout`, `http` (the server
 * answered with an error document; `code` is its stable code), `protocol` (an answer that is not
 * the document we asked for: usually a plugin/server version mismatch).
 */

export type ApiErrorKind = "unreachable" | "timeout" | "http" | "protocol";

export class ApiError extends Error {
	readonly kind: ApiErrorKind;
	readonly status: number;
	readonly code: string;

	constructor(kind: ApiErrorKind, message: string, status = 0, code = "") {
		super(message);
		this.name = "ApiError";
		this.kind = kind;
		this.status = status;
		this.code = code || kind;
	}
}

export function isApiError(err: unknown): err is ApiError {
	return err instanceof ApiError;
}

/** Any thrown value as an ApiError (unknown failures count as unreachable). */
export function toApiError(err: unknown): ApiError {
	if (err instanceof ApiError) return err;
	const message = err instanceof Error ? err.message : String(err);
	return new ApiError("unreachable", message);
}
