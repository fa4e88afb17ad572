"""``vaultheat`` command line: a thin shell over the engine.

Agent-first conventions: with ``--json`` exactly one JSON document goes to stdout (versioned
``vaultheat.<thing>.v1``), logs and progress go to stderr, and the exit code says what
happened: 0 results, 1 empty, 2 error (every ``VaultheatError`` and bad usage).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vaultheat import __version__
from vaultheat.errors import InputError, VaultheatError
from vaultheat.server.options import add_serve_arguments

EXIT_OK, EXIT_EMPTY, EXIT_ERROR = 0, 1, 2
log = logging.getLogger("vaultheat")


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # exit 2 with our own message, never a traceback
        raise UsageError(message)


def _common(p: argparse.ArgumentParser, *, json_flag: bool = True) -> None:
    p.add_argument("--vault", type=Path, help="the vault folder (default: found from the cwd)")
    p.add_argument("--index-dir", type=Path, help="keep the index outside the vault")
    if json_flag:
        p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logs on stderr")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="vaultheat", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"vaultheat {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("init", help="create the index folder and a commented config.toml")
    p.add_argument("vault_arg", nargs="?", type=Path, metavar="VAULT")
    _common(p)

    p = sub.add_parser("index", help="bring the index in line with the vault")
    p.add_argument("--full", action="store_true", help="rebuild from scratch")
    _common(p)

    p = sub.add_parser("status", help="counts, skipped files and index state")
    _common(p)

    p = sub.add_parser("config", help="read or change one setting")
    p.add_argument("action", choices=["get", "set", "list"])
    p.add_argument("key", nargs="?")
    p.add_argument("value", nargs="?")
    _common(p)

    p = sub.add_parser("search", help="semantic + lexical + graph search")
    p.add_argument("query", nargs="?", help="the query ('-' reads it from stdin)")
    p.add_argument("--top", type=int, default=10)
    p.add_argument("--batch", metavar="FILE", help="one query per line ('-' = stdin): JSONL out")
    p.add_argument("--files-only", action="store_true")
    p.add_argument("--explain", action="store_true")
    p.add_argument("--no-lexical", action="store_true")
    p.add_argument("--no-graph", action="store_true")
    p.add_argument("--no-rerank", action="store_true")
    p.add_argument("--rerank", action="store_true", help="rerank even if off in the config")
    p.add_argument("--no-expand", action="store_true")
    p.add_argument("--expand", action="store_true", help="expand even if off in the config")
    p.add_argument("--folder")
    p.add_argument("--tag")
    p.add_argument("--property", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--full-text", action="store_true", help="do not truncate chunk text")
    _common(p)

    p = sub.add_parser("related", help="notes related to a note (or to unsaved text)")
    p.add_argument("note", help="vault-relative path of the note")
    p.add_argument("--text", help="the note's current text ('-' reads stdin)")
    p.add_argument("--cursor", type=int, help="cursor byte offset into the text")
    p.add_argument("--top", type=int, default=10)
    p.add_argument("--unlinked-only", action="store_true")
    p.add_argument("--explain", action="store_true")
    p.add_argument("--no-graph", action="store_true")
    p.add_argument("--no-lexical", action="store_true")
    _common(p)

    p = sub.add_parser("explain", help="why one result is there")
    p.add_argument("query", nargs="?", help="the search query")
    p.add_argument("--chunk", type=int, help="chunk id of the search result to explain")
    p.add_argument("--rank", type=int, help="explain the result at this rank (default 1)")
    p.add_argument("--related", metavar="NOTE", help="explain a related-notes result of NOTE")
    p.add_argument("--target", help="with --related: the suggested note to explain")
    _common(p)

    p = sub.add_parser("inspect", help="look at chunks, notes and graph edges")
    p.add_argument("what", choices=["chunk", "note", "neighbors"])
    p.add_argument("ref", help="a chunk id or a note path")
    _common(p)

    p = sub.add_parser("check", help="verify the index is consistent")
    _common(p)

    p = sub.add_parser("eval", help="measure search and related-notes quality")
    p.add_argument("--queries", type=Path, help="search set (JSONL: query, relevant_files)")
    p.add_argument("--linkpred", type=Path, help="link-prediction set (JSONL: note, relevant)")
    p.add_argument("--variant", choices=["links-removed", "links-as-text"])
    p.add_argument("--mode", choices=["strict", "lenient"], default="strict")
    p.add_argument("--sample", type=int, help="evaluate a random sample of N link queries")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--configs", help="comma-separated configurations to run")
    p.add_argument("--split", choices=["all", "tune", "holdout"], default="all")
    p.add_argument("--canary", action="store_true", help="also run the link-leak canary")
    p.add_argument(
        "--sweep", type=Path, metavar="GRID.toml", help="a parameter sweep (docs/eval.md)"
    )
    _common(p)

    p = sub.add_parser("serve", help="run the localhost JSON API for the Obsidian plugin")
    add_serve_arguments(p)
    _common(p, json_flag=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except UsageError as exc:
        print(f"vaultheat: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    logging.basicConfig(
        level=logging.DEBUG if getattr(args, "verbose", False) else logging.INFO,
        format="vaultheat: %(message)s",
        stream=sys.stderr,
    )
    for noisy in ("sentence_transformers", "transformers", "httpx", "urllib3", "filelock"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    from vaultheat import commands

    handler: Callable[[argparse.Namespace], int] = getattr(commands, "cmd_" + args.command)
    try:
        return handler(args)
    except VaultheatError as exc:
        if getattr(args, "json", False):
            print(json.dumps({"schema": "vaultheat.error.v1", "error": exc.to_dict()}))
        print(f"vaultheat: error: {exc.message}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("vaultheat: interrupted", file=sys.stderr)
        return 130


def emit(args: argparse.Namespace, doc: dict[str, Any], human: Callable[[], str]) -> None:
    if getattr(args, "json", False):
        sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(human() + "\n")
    sys.stdout.flush()


class ProgressBar:
    """A progress line on stderr: redrawn in place on a TTY, a plain line per stage otherwise."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.stage = ""
        self.t0 = time.perf_counter()
        self.last = 0.0

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if stage != self.stage:
            if self.tty and self.stage:
                sys.stderr.write("\n")
            self.stage, self.t0 = stage, now
            if not self.tty:
                sys.stderr.write(f"vaultheat: {stage}: {total} to do\n")
        if self.tty and (now - self.last > 0.1 or done == total):
            rate = done / max(now - self.t0, 1e-6)
            width = 30
            filled = int(width * done / max(total, 1))
            eta = (total - done) / rate if rate > 0 else 0
            sys.stderr.write(
                f"\r{stage:>6} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
                f"{rate:.1f}/s eta {eta:.0f}s "
            )
            self.last = now
        if not self.tty and done == total:
            sys.stderr.write(f"vaultheat: {stage}: done {done}/{total}\n")
        sys.stderr.flush()

    def close(self) -> None:
        if self.tty and self.stage:
            sys.stderr.write("\n")


def parse_property(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise InputError(f"--property takes KEY=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


if __name__ == "__main__":
    raise SystemExit(main())
