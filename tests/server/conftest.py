"""Fixtures: a real server on an ephemeral port, real HTTP (httpx), answers checked by OpenAPI.

The example vault is indexed once per session with the deterministic fake embedder; each test
gets its own copy (vault and index), so tests can edit notes freely. ``Live.request`` validates
every JSON answer against the response schema ``/v1/openapi.json`` declares for that route and
status: the document cannot claim something the server does not do.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from live_server import (
    TEST_SETTINGS,
    TOKEN,
    Live,
    MakeLive,
    OpenApiChecker,
    SseClient,
    copy_example_vault,
)

from vaultheat.engine import Engine
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.server.app import create_app
from vaultheat.server.openapi import openapi_document
from vaultheat.server.runner import ServerThread
from vaultheat.server.state import STATE


@pytest.fixture(scope="session")
def indexed_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = copy_example_vault(tmp_path_factory.mktemp("template") / "vault")
    engine = Engine.open(vault, embedder=FakeEmbedder(), require_index=False)
    engine.index()
    engine.close()
    return vault


@pytest.fixture
def vault(tmp_path: Path, indexed_template: Path) -> Path:
    """A private copy of the indexed example vault (its index in ``.vaultheat``)."""
    dest = tmp_path / "vault"
    shutil.copytree(indexed_template, dest, symlinks=True)
    return dest


@pytest.fixture(scope="session")
def api() -> OpenApiChecker:
    return OpenApiChecker(openapi_document())


@pytest.fixture
def make_live(vault: Path, api: OpenApiChecker) -> Iterator[MakeLive]:
    started: list[Live] = []

    def make(
        *,
        vault_path: Path | None = None,
        index_dir: Path | None = None,
        overrides: dict[str, Any] | None = None,
        embedder: Any = None,
        wait: bool = True,
    ) -> Live:
        engine = Engine.open(
            vault_path or vault,
            index_dir,
            overrides={**TEST_SETTINGS, **(overrides or {})},
            embedder=embedder or FakeEmbedder(),
            require_index=False,
        )
        app = create_app(engine, engine.settings.server, TOKEN)
        server = ServerThread(app).start()
        live = Live(
            url=server.url,
            token=TOKEN,
            vault=vault_path or vault,
            engine=engine,
            state=app[STATE],
            api=api,
            client=httpx.Client(timeout=30),
            server=server,
        )
        started.append(live)
        if wait:
            live.wait_idle()
        return live

    yield make
    for live in started:
        live.client.close()
        live.server.stop()


@pytest.fixture
def live(make_live: MakeLive) -> Live:
    return make_live()


@pytest.fixture
def sse() -> Iterator[Callable[[Live], SseClient]]:
    opened: list[SseClient] = []

    def connect(live: Live) -> SseClient:
        client = SseClient(live.url, live.token)
        opened.append(client)
        return client

    yield connect
    for c in opened:
        c.close()
