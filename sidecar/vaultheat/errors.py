"""One root error for every expected failure.

The shells map these to the outside world and nowhere else: the CLI to exit code 2 with the
message on stderr, the HTTP API to ``{"error": {"code", "message"}}`` with ``http_status``.

    VaultheatError                 code            http
    ├── ConfigError                config          400   bad/unknown key or value, bad config.toml
    ├── VaultError                 vault           400   vault missing or not a folder; path escapes
    ├── IndexMissingError          index_missing   409   no index yet: run `vaultheat init`/`index`
    ├── IndexExistsError           index_exists    409   `init` on an index that is already there
    ├── IndexMismatchError         index_mismatch  409   model/settings changed: index --full
    ├── IndexCorruptError          index_corrupt   500   a file of the index is damaged
    ├── IndexChangedError          index_changed   503   the index was replaced or rebuilt under
    │                                                    an open reader: reopen it and retry
    ├── IndexLockedError           index_locked    409   another writer holds the index lock
    ├── IndexProcessError          index_process   500   the server's index child died or was killed
    ├── ProviderError              provider        502   embedder/reranker/generator failed
    │   └── ModelMissingError      model_missing   500   the model package/path is not installed
    ├── NotFoundError              not_found       404   note/chunk id unknown; plugin not built
    └── InputError                 bad_request     400   malformed request or query file
"""

from __future__ import annotations

from typing import Any


class VaultheatError(Exception):
    """Base of every expected failure; carries a stable code and some context."""

    code = "error"
    http_status = 500

    def __init__(self, message: str, **context: Any) -> None:
        super().__init__(message)
        self.message = message
        self.context = context

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.context:
            out["context"] = {k: _jsonable(v) for k, v in self.context.items()}
        return out


def _jsonable(value: Any) -> Any:
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return str(value)


class ConfigError(VaultheatError):
    code = "config"
    http_status = 400


class VaultError(VaultheatError):
    code = "vault"
    http_status = 400


class IndexMissingError(VaultheatError):
    code = "index_missing"
    http_status = 409


class IndexExistsError(VaultheatError):
    code = "index_exists"
    http_status = 409


class IndexMismatchError(VaultheatError):
    code = "index_mismatch"
    http_status = 409


class IndexProcessError(VaultheatError):
    code = "index_process"
    http_status = 500


class IndexCorruptError(VaultheatError):
    code = "index_corrupt"
    http_status = 500


class IndexChangedError(VaultheatError):
    """A read of an open index failed because its files changed under the reader (replaced,
    rebuilt or overwritten by another process). Reopening the index and asking again is the
    fix; when the reopened index fails too it is damaged (``IndexCorruptError``)."""

    code = "index_changed"
    http_status = 503


class IndexLockedError(VaultheatError):
    code = "index_locked"
    http_status = 409


class ProviderError(VaultheatError):
    code = "provider"
    http_status = 502


class ModelMissingError(ProviderError):
    code = "model_missing"
    http_status = 500


class NotFoundError(VaultheatError):
    code = "not_found"
    http_status = 404


class InputError(VaultheatError):
    code = "bad_request"
    http_status = 400
