"""A tiny client for the CLI to steer a running server (``vaultheat index --pause`` ...).

It finds the server through the discovery file (ignoring a stale one) and turns an error
document back into the matching ``VaultheatError``, so the CLI reports it like any other.
"""

from __future__ import annotations

from typing import Any

import httpx

from vaultheat import errors
from vaultheat.paths import IndexPaths
from vaultheat.server.discovery import ServerInfo, running_server

_BY_CODE: dict[str, type[errors.VaultheatError]] = {
    cls.code: cls
    for cls in (
        errors.ConfigError,
        errors.VaultError,
        errors.IndexMissingError,
        errors.IndexExistsError,
        errors.IndexMismatchError,
        errors.IndexCorruptError,
        errors.IndexChangedError,
        errors.IndexLockedError,
        errors.ProviderError,
        errors.ModelMissingError,
        errors.NotFoundError,
        errors.InputError,
    )
}


def find_server(paths: IndexPaths) -> ServerInfo | None:
    """The live server of this index, or None (none running, or a stale discovery file)."""
    return running_server(paths.server)


def call(
    info: ServerInfo, method: str, path: str, body: Any = None, *, timeout: float = 30.0
) -> dict[str, Any]:
    """One authenticated request; the JSON answer, or the server's error raised."""
    try:
        resp = httpx.request(
            method,
            info.url + path,
            json=body,
            headers={"Authorization": f"Bearer {info.token}"},
            timeout=timeout,
        )
    except httpx.HTTPError as exc:
        raise errors.VaultheatError(f"cannot reach the server at {info.url}: {exc}") from exc
    try:
        doc: dict[str, Any] = resp.json()
    except ValueError as exc:
        raise errors.VaultheatError(f"the server answered {resp.status_code} without JSON") from exc
    if resp.is_error:
        err = doc.get("error", {}) if isinstance(doc, dict) else {}
        cls = _BY_CODE.get(str(err.get("code")), errors.VaultheatError)
        raise cls(str(err.get("message") or f"server error {resp.status_code}"))
    return doc
