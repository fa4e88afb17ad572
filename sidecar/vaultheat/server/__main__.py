"""``python -m vaultheat.server``: the same server as ``vaultheat serve``, without the CLI."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from vaultheat.server.options import add_serve_arguments, serve_from_args


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m vaultheat.server", description=__doc__)
    p.add_argument(
        "--vault", type=Path, default=None, help="vault folder (default: found from cwd)"
    )
    p.add_argument("--index-dir", type=Path, default=None, help="index folder outside the vault")
    add_serve_arguments(p)
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    return serve_from_args(parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
