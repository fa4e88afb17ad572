"""``AutoBackend`` follows a server that starts or stops under a running agent session."""

from __future__ import annotations

import os
from pathlib import Path

from vaultheat.agents.backend import AutoBackend
from vaultheat.agents.tools import call_tool
from vaultheat.engine import Engine
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.server.app import create_app
from vaultheat.server.discovery import ServerInfo, now_iso, remove_discovery, write_discovery
from vaultheat.server.runner import ServerThread

TOKEN = "agents-test-token-" + "y" * 24


def test_server_starting_and_stopping_mid_session(agent_vault: Path) -> None:
    paths = index_paths(agent_vault)
    auto = AutoBackend(paths, embedder=FakeEmbedder())
    try:
        ok, doc = call_tool(auto, "status", {})
        assert ok and doc["agent"]["backend"] == "engine"
        engine = Engine.open(agent_vault, embedder=FakeEmbedder(),
                             overrides={"server.scan_interval_s": 0})  # fmt: skip
        server = ServerThread(create_app(engine, engine.settings.server, TOKEN)).start()
        info = ServerInfo(url=server.url, host=server.host, port=server.port, pid=os.getpid(),
                          token=TOKEN, vault=str(paths.vault), started_at=now_iso())  # fmt: skip
        write_discovery(paths.server, info)
        try:
            ok, doc = call_tool(auto, "status", {})
            assert ok and doc["agent"] == {"backend": "server", "server": server.url}
            assert auto._engine is None  # the local engine (and its model) was let go
            ok, found = call_tool(auto, "search", {"query": "espresso", "top": 2})
            assert ok and found["results"]
            server.stop()
            # the discovery file still names a live pid (ours), but nobody answers
            ok, err = call_tool(auto, "search", {"query": "espresso", "top": 2})
            assert not ok and err["error"]["code"] == "server_unreachable"
        finally:
            server.stop()
            remove_discovery(paths.server, os.getpid())
            engine.close()
        ok, again = call_tool(auto, "search", {"query": "espresso", "top": 2})
        assert ok and again["results"] == found["results"]
        ok, doc = call_tool(auto, "status", {})
        assert ok and doc["agent"]["backend"] == "engine"
    finally:
        auto.close()
