"""Where agent answers come from: the in-process ``Engine``, or a running ``vaultheat serve``.

The rule of the issue is "never two index writers, never a second model in memory": when a
server runs for the vault (its discovery file names a live pid), queries and ``refresh`` go to
it over HTTP with its bearer token, and this process never builds an embedder. When none runs,
the index is opened here (lazily: the model loads on the first query that needs it).

``AutoBackend`` decides per call, so a session survives a server starting or stopping under
it: a server that appears takes over (the local engine is closed, its model freed), one that
goes away mid-call is retried once locally. ``open`` and ``neighbors`` read the vault files
and a read-only SQLite view themselves in both modes: they need no model.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

import httpx

from vaultheat import errors, index_status
from vaultheat.config import Settings, load_settings
from vaultheat.core.requests import RelatedRequest, SearchRequest, with_default_top
from vaultheat.documents import (
    explain_document,
    missing_document,
    refresh_document,
    related_document,
    search_document,
    status_document,
)
from vaultheat.paths import IndexPaths, safe_vault_path
from vaultheat.providers.base import Embedder
from vaultheat.server.client import _BY_CODE
from vaultheat.server.discovery import ServerInfo, running_server
from vaultheat.storage.store import Store

log = logging.getLogger("vaultheat.agents")

ProgressCb = Callable[[str, int, int], None]


class ServerGone(errors.VaultheatError):
    code = "server_unreachable"


class Backend(Protocol):
    """What the tool table needs; both backends answer with the same documents."""

    kind: str
    paths: IndexPaths
    settings: Settings

    def search(self, body: dict[str, Any]) -> dict[str, Any]: ...
    def related(self, body: dict[str, Any]) -> dict[str, Any]: ...
    def explain(self, body: dict[str, Any]) -> dict[str, Any]: ...
    def explain_missing(self, body: dict[str, Any]) -> dict[str, Any]: ...
    def status(self) -> dict[str, Any]: ...
    def refresh(
        self, *, full: bool, wait: bool, timeout_s: float, progress: ProgressCb | None
    ) -> dict[str, Any]: ...
    def store(self) -> Store | None: ...
    def close(self) -> None: ...


def vault_path(paths: IndexPaths, rel: Any, field: str = "path") -> str:
    """A vault-relative path checked (no escapes, symlinks included) and normalized."""
    if not isinstance(rel, str):
        raise errors.InputError(f"{field} must be a vault-relative path (a string)")
    return safe_vault_path(paths.vault, rel).relative_to(paths.vault.resolve()).as_posix()


class EngineBackend:
    """Answers from an ``Engine`` opened in this process (it owns the index writer lock only
    while ``refresh`` runs, like ``vaultheat index``)."""

    kind = "engine"

    def __init__(self, paths: IndexPaths, settings: Settings, engine: Any) -> None:
        self.paths, self.settings, self.engine = paths, settings, engine

    def search(self, body: dict[str, Any]) -> dict[str, Any]:
        body = with_default_top(body, self.engine.settings.search.top)
        return search_document(self.engine.search(SearchRequest.from_dict(body)))

    def related(self, body: dict[str, Any]) -> dict[str, Any]:
        req = RelatedRequest.from_dict(with_default_top(body, self.engine.settings.related.top))
        return related_document(
            self.engine.related(replace(req, path=vault_path(self.paths, req.path)))
        )

    def explain(self, body: dict[str, Any]) -> dict[str, Any]:
        rest = dict(body)
        if "query" in rest:
            chunk_id = rest.pop("chunk_id")
            sreq = SearchRequest.from_dict(rest)
            return explain_document(self.engine.explain(sreq, chunk_id))
        target = vault_path(self.paths, rest.pop("target"), "target")
        req = RelatedRequest.from_dict(rest)
        req = replace(req, path=vault_path(self.paths, req.path))
        return explain_document(self.engine.explain(req, target))

    def explain_missing(self, body: dict[str, Any]) -> dict[str, Any]:
        rest = dict(body)
        path = vault_path(self.paths, rest.pop("path", None))
        req = SearchRequest.from_dict(with_default_top(rest, self.engine.settings.search.top))
        return missing_document(self.engine.explain_missing(req, path))

    def status(self) -> dict[str, Any]:
        return status_document(self.engine.status())

    def refresh(
        self, *, full: bool, wait: bool, timeout_s: float, progress: ProgressCb | None
    ) -> dict[str, Any]:
        report = self.engine.index(full=full, progress=progress)
        state = index_status.freshness(self.engine).state
        return refresh_document(self.kind, full=full, done=True, state=state,
                                report=report.to_dict())  # fmt: skip

    def store(self) -> Store | None:
        if not self.paths.db.exists():
            return None
        store: Store = self.engine.views.store()
        return store

    def reset(self) -> None:
        """Drop cached views after the index changed under us (they reopen on the next call)."""
        self.engine.views.reopen()

    def close(self) -> None:
        self.engine.close()


class ServerBackend:
    """Answers from a running ``vaultheat serve`` (one keep-alive HTTP connection)."""

    kind = "server"

    def __init__(self, paths: IndexPaths, settings: Settings, info: ServerInfo) -> None:
        self.paths, self.settings, self.info = paths, settings, info
        self.client = httpx.Client(
            base_url=info.url,
            headers={"Authorization": f"Bearer {info.token}"},
            timeout=httpx.Timeout(120.0, connect=5.0),
        )
        self._store: Store | None = None

    def _call(self, method: str, route: str, body: Any = None) -> dict[str, Any]:
        try:
            resp = self.client.request(method, route, json=body)
        except httpx.HTTPError as exc:
            raise ServerGone(f"cannot reach the server at {self.info.url}: {exc}") from exc
        try:
            doc: dict[str, Any] = resp.json()
        except ValueError as exc:
            raise errors.VaultheatError(
                f"the server answered {resp.status_code} without JSON"
            ) from exc
        if resp.is_error:
            err = doc.get("error", {}) if isinstance(doc, dict) else {}
            cls = _BY_CODE.get(str(err.get("code")), errors.VaultheatError)
            raise cls(str(err.get("message") or f"server error {resp.status_code}"))
        return doc

    def search(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._call("POST", "/v1/search", body)

    def related(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._call("POST", "/v1/related", body)

    def explain(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._call("POST", "/v1/explain", body)

    def explain_missing(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._call("POST", "/v1/explain/missing", body)

    def status(self) -> dict[str, Any]:
        return self._call("GET", "/v1/status")

    def refresh(
        self, *, full: bool, wait: bool, timeout_s: float, progress: ProgressCb | None
    ) -> dict[str, Any]:
        self._call("POST", "/v1/index", {"full": full})
        deadline = time.monotonic() + timeout_s
        status = self.status()
        done = False
        while wait:
            done = status.get("state") != "indexing" and not status.get("queue")
            if done or time.monotonic() > deadline:
                break
            prog = status.get("progress") or {}
            if progress and prog.get("total"):
                progress(str(prog.get("stage", "index")), int(prog.get("done", 0)),
                         int(prog["total"]))  # fmt: skip
            time.sleep(0.2)
            status = self.status()
        return refresh_document(self.kind, full=full, done=done, state=status.get("state"),
                                report=None)  # fmt: skip

    def store(self) -> Store | None:
        if self._store is not None and self._store.replaced():
            self.reset()
        if self._store is None:
            if not self.paths.db.exists():
                return None
            self._store = Store(self.paths.db, readonly=True)
        return self._store

    def reset(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def close(self) -> None:
        self.reset()
        self.client.close()


class AutoBackend:
    """Picks the server when one runs for this index, else the in-process engine; per call."""

    def __init__(
        self,
        paths: IndexPaths,
        *,
        overrides: dict[str, Any] | None = None,
        embedder: Embedder | None = None,
        prefer_server: bool = True,
    ) -> None:
        self.paths = paths
        self.overrides = overrides
        self.embedder = embedder
        self.prefer_server = prefer_server
        self._engine: EngineBackend | None = None
        self._server: ServerBackend | None = None
        settings = load_settings(paths.config)
        self.settings = settings.with_overrides(overrides) if overrides else settings

    def current(self) -> EngineBackend | ServerBackend:
        info = running_server(self.paths.server) if self.prefer_server else None
        if info is not None:
            if self._server is None or self._server.info != info:
                if self._server is not None:
                    self._server.close()
                self._server = ServerBackend(self.paths, self.settings, info)
                log.info("using the running server at %s", info.url)
            if self._engine is not None:  # a server took over: free the model and the index
                self._engine.close()
                self._engine = None
            return self._server
        if self._server is not None:
            self._server.close()
            self._server = None
        if self._engine is None:
            from vaultheat.engine import Engine

            engine = Engine.open(
                self.paths.vault, self.paths.root, overrides=self.overrides,
                embedder=self.embedder,
            )  # fmt: skip
            self._engine = EngineBackend(self.paths, engine.settings, engine)
            log.info("no server running: opened the index of %s in this process", self.paths.vault)
        return self._engine

    @property
    def kind(self) -> str:
        return self.current().kind

    def run(self, fn: Callable[[Backend], Any]) -> Any:
        """``fn(backend)``; a vanished server or an index replaced under us is retried once."""
        backend = self.current()
        try:
            return fn(backend)
        except ServerGone:
            if running_server(self.paths.server) is not None:
                raise
            log.info("the server went away; answering from this process")
            return fn(self.current())
        except errors.IndexChangedError as exc:
            log.info("the index changed during a call (%s); reopening it", exc.message)
            backend.reset()
            return fn(self.current())

    def close(self) -> None:
        for b in (self._engine, self._server):
            if b is not None:
                b.close()
        self._engine = self._server = None
