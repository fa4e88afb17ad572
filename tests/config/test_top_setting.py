"""``search.top`` and ``related.top`` decide how many results a query gets when the client does
not say (the CLI without ``--top``, an API or agent request without ``top``); before, both keys
were validated, listed by ``config keys`` and documented, but nothing read them (every surface
used a hard-coded 10)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from vaultheat.agents.backend import EngineBackend
from vaultheat.cli import main
from vaultheat.config import Settings
from vaultheat.engine import Engine
from vaultheat.errors import ConfigError
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.server.app import create_app
from vaultheat.server.runner import ServerThread

NOTE = "Coffee/Roasting/Roasting Basics.md"
TOKEN = "top-token-" + "x" * 32


def cli_count(capsys: pytest.CaptureFixture[str], vault: Path, *argv: str) -> int:
    capsys.readouterr()
    assert main([*argv, "--vault", str(vault), "--json"]) == 0
    return len(json.loads(capsys.readouterr().out)["results"])


def test_the_top_settings_decide_when_no_top_is_given(
    fake_engine: Any, vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_count(capsys, vault, "search", "coffee roasting") == 10  # the default
    assert main(["config", "set", "search.top", "3", "--vault", str(vault)]) == 0
    assert main(["config", "set", "related.top", "4", "--vault", str(vault)]) == 0
    assert cli_count(capsys, vault, "search", "coffee roasting") == 3
    assert cli_count(capsys, vault, "search", "coffee roasting", "--files-only") == 3
    assert cli_count(capsys, vault, "search", "coffee roasting", "--top", "6") == 6
    assert cli_count(capsys, vault, "related", NOTE) == 4
    assert cli_count(capsys, vault, "related", NOTE, "--top", "2") == 2

    engine = Engine.open(vault, embedder=FakeEmbedder(), overrides={"server.scan_interval_s": 0})
    try:
        backend = EngineBackend(index_paths(vault), engine.settings, engine)
        assert len(backend.search({"query": "coffee roasting"})["results"]) == 3
        assert len(backend.related({"path": NOTE})["results"]) == 4
        assert len(backend.search({"query": "coffee roasting", "top": 5})["results"]) == 5

        app = create_app(engine, engine.settings.server, TOKEN)
        thread = ServerThread(app).start()
        try:
            headers = {"Authorization": f"Bearer {TOKEN}"}
            with httpx.Client(base_url=thread.url, headers=headers, trust_env=False) as client:
                found = client.post("/v1/search", json={"query": "coffee roasting"}).json()
                assert len(found["results"]) == 3
                assert len(client.post("/v1/related", json={"path": NOTE}).json()["results"]) == 4
                bad = client.post("/v1/search", json={"query": "coffee", "top": 0})
                assert bad.status_code == 400
        finally:
            thread.stop()
    finally:
        engine.close()


@pytest.mark.parametrize("value", [0, 101])
def test_top_settings_out_of_range_are_refused(value: int) -> None:
    """A value every request would refuse (top is 1..100) is refused when set."""
    for key in ("search.top", "related.top"):
        with pytest.raises(ConfigError, match="1 to 100"):
            Settings().with_value(key, value)
