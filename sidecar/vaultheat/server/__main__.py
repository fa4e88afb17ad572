"""``python -m vaultheat.server``: the same server as ``vaultheat serve``, without the CLI."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from vaultheat.server.serve import serve


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m vaultheat.server", description=__doc__)
    p.add_argument(
        "--vault", type=Path, default=None, help="vault folder (default: found from cwd)"
    )
    p.add_argument("--index-dir", type=Path, default=None, help="index folder outside the vault")
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default from config; 0 = any)")
    p.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --host")
    p.add_argument("--low-priority", action="store_true", help="index at a lower CPU priority")
    p.add_argument("--threads", type=int, default=None, help="CPU threads for the model")
    p.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="also exclude these vault-relative globs for this run (repeatable; not saved)",
    )
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    a = parse_args(argv)
    return serve(
        a.vault,
        a.index_dir,
        host=a.host,
        port=a.port,
        allow_remote=a.allow_remote,
        low_priority=a.low_priority,
        threads=a.threads,
        exclude=tuple(a.exclude),
    )


if __name__ == "__main__":
    sys.exit(main())
