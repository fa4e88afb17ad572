"""One serve path: ``vaultheat serve`` and ``python -m vaultheat.server`` take the same flags
and hand them to ``serve`` the same way (defaults left to the index's config)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from vaultheat import cli
from vaultheat.server import __main__ as server_main
from vaultheat.server import serve as serve_mod


def options(parser: argparse.ArgumentParser) -> dict[str, Any]:
    return {
        a.option_strings[-1]: (a.default, a.type, a.nargs, a.const)
        for a in parser._actions
        if a.option_strings and a.dest != "help"
    }


def serve_parser() -> argparse.ArgumentParser:
    sub = next(a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["serve"]


def test_both_entry_points_declare_the_same_serve_flags() -> None:
    ours = options(serve_parser())
    module = options(_module_parser())
    shared = {
        "--host", "--port", "--allow-remote", "--low-priority", "--threads", "--exclude",
        "--parent-pid",
    }  # fmt: skip
    assert shared <= ours.keys() and shared <= module.keys()
    assert {k: ours[k] for k in shared} == {k: module[k] for k in shared}
    assert ours["--host"][0] is None and ours["--port"][0] is None  # config decides


def _module_parser() -> argparse.ArgumentParser:
    captured: dict[str, argparse.ArgumentParser] = {}
    original = argparse.ArgumentParser.parse_args

    def grab(self: argparse.ArgumentParser, *a: Any, **kw: Any) -> Any:
        captured["p"] = self
        return original(self, *a, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(argparse.ArgumentParser, "parse_args", grab)
        server_main.parse_args([])
    return captured["p"]


@pytest.mark.parametrize("entry", ["cli", "module"])
def test_both_entry_points_call_serve_alike(
    entry: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[Any, ...]] = []

    def fake_serve(vault: Any, index_dir: Any, **kw: Any) -> int:
        calls.append((vault, index_dir, kw))
        return 0

    monkeypatch.setattr(serve_mod, "serve", fake_serve)
    argv = ["--vault", str(tmp_path), "--port", "0", "--low-priority", "--parent-pid", "42"]
    rc = cli.main(["serve", *argv]) if entry == "cli" else server_main.main(argv)
    assert rc == 0
    assert calls == [
        (
            tmp_path,
            None,
            {
                "host": None,
                "port": 0,
                "allow_remote": False,
                "allow_hosts": (),
                "tls_cert": None,
                "tls_key": None,
                "low_priority": True,
                "threads": None,
                "index_cpus": None,
                "exclude": (),
                "parent_pid": 42,
            },
        )
    ]
