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
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vaultheat import __version__
from vaultheat.console import EXIT_ERROR
from vaultheat.errors import VaultheatError
from vaultheat.server.options import add_serve_arguments

log = logging.getLogger("vaultheat")


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # exit 2 with our own message, never a traceback
        raise UsageError(message)


def _common(p: argparse.ArgumentParser, *, json_flag: bool = True) -> None:
    p.add_argument("--vault", type=Path, help="the vault folder (default: found from the cwd)")
    p.add_argument("--index-dir", type=Path, help="the index folder (default: VAULT/.vaultheat)")
    if json_flag:
        p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logs on stderr")


def _add(sub: Any, name: str, summary: str, description: str, *examples: str) -> Any:
    """A subcommand with a one-line summary (in `vaultheat --help`), a description and examples."""
    return sub.add_parser(
        name,
        help=summary,
        description=textwrap.fill(description, 88),
        epilog="examples:\n" + "\n".join(f"  {e}" for e in examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _search_description() -> str:
    from vaultheat.config import Settings

    s = Settings()
    graph = (
        f"graph heat propagation ({s.experimental.search_hops} hops)"
        if s.experimental.search_hops
        else "graph heat propagation is off (experimental.search_hops = 0)"
    )
    rerank = "on" if s.rerank.enabled else "off"
    expand = "on" if s.expansion.enabled else "off"
    return (
        "Semantic search over the vault's chunks: vector similarity fused with BM25 lexical "
        f"matches. By default {graph}, reranking is {rerank} and query expansion is {expand}; "
        "the flags below switch stages for one query. Each result has a relative score and an "
        "absolute relevance (strong / good / weak)."
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="vaultheat", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"vaultheat {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = _add(sub, "init", "create the index folder and a commented config.toml",
             "Create VAULT/.vaultheat/ (or --index-dir) with a commented config.toml. The English "
             "model stays; a second vector space is added for questions and notes in other "
             "languages (USE multilingual v3; e5 for a vault mostly not in English when the "
             "multilingual extra is installed). Nothing is written into the vault's notes.",
             "vaultheat init ~/Notes", "vaultheat init --no-second-space")  # fmt: skip
    p.add_argument("vault_arg", nargs="?", type=Path, metavar="VAULT",
                   help="the vault folder (default: the current folder)")  # fmt: skip
    p.add_argument("--no-second-space", action="store_true",
                   help="English only: no second vector space, a faster first index "
                        "(embeddings.second_space)")  # fmt: skip
    _common(p)

    p = _add(sub, "index", "bring the index in line with the vault",
             "Index new and changed notes, drop deleted ones and repair the graph. Incremental: "
             "unchanged notes cost one stat each and the model is loaded only when something "
             "needs embedding. Ends with skipped files and notes with problems.",
             "vaultheat index --vault ~/Notes", "vaultheat index --full")  # fmt: skip
    p.add_argument("--full", action="store_true",
                   help="rebuild every note (needed after a model or chunking change)")  # fmt: skip
    p.add_argument("--cpus", type=int, default=None, metavar="N",
                   help="use at most N cores (default: index.cpus, 0 = all)")  # fmt: skip
    _common(p)

    p = _add(sub, "status", "counts, skipped files and index state",
             "What the index holds and whether it is ready, stale (notes changed since the last "
             "index), incomplete (a run did not finish) or indexing, and why.",
             "vaultheat status", "vaultheat status --json")  # fmt: skip
    _common(p)

    p = _add(sub, "config", "read or change settings; `config keys` lists them all",
             "Read or change one setting of .vaultheat/config.toml; every key and value is "
             "validated. `list` shows the current values, `keys` every valid key with its "
             "meaning and default.",
             "vaultheat config keys", "vaultheat config get search.top",
             "vaultheat config set related.top 15", "vaultheat config list")  # fmt: skip
    p.add_argument("action", choices=["get", "set", "list", "keys"],
                   help="get KEY | set KEY VALUE | list (values) | keys (all keys)")  # fmt: skip
    p.add_argument("key", nargs="?", help="a dotted key such as search.top")
    p.add_argument("value", nargs="?", help="with set: the new value")
    _common(p)

    p = _add(sub, "search", "semantic + lexical search (graph stage off by default)",
             _search_description(), 'vaultheat search "how do I get a refund" --files-only',
             'vaultheat search "sourdough" --tag baking --top 5 --json',
             "vaultheat search --batch queries.txt")  # fmt: skip
    p.add_argument("query", nargs="?", help="the query ('-' reads it from stdin)")
    p.add_argument("--top", type=int, help="results to return (default: search.top, 10)")
    p.add_argument("--batch", metavar="FILE", help="one query per line ('-' = stdin): JSONL out")
    p.add_argument("--files-only", action="store_true", help="one result per note, not per chunk")
    p.add_argument("--explain", action="store_true", help="attach each result's score trace")
    p.add_argument("--no-lexical", action="store_true", help="skip the BM25 stage")
    p.add_argument("--no-graph", action="store_true",
                   help="skip heat propagation, an experiment (runs only when "
                   "experimental.search_hops > 0)")  # fmt: skip
    p.add_argument("--no-rerank", action="store_true", help="do not rerank even if configured")
    p.add_argument("--rerank", action="store_true", help="rerank even if off in the config")
    p.add_argument("--no-expand", action="store_true", help="no query expansion even if on")
    p.add_argument("--expand", action="store_true", help="expand even if off in the config")
    p.add_argument("--folder", help="only notes under this vault folder")
    p.add_argument("--tag", help="only notes with this tag (or a nested one below it)")
    p.add_argument("--property", action="append", default=[], metavar="KEY=VALUE",
                   help="only notes whose frontmatter KEY equals VALUE (repeatable)")  # fmt: skip
    p.add_argument("--full-text", action="store_true", help="do not truncate chunk text")
    _common(p)

    p = _add(sub, "related", "notes related to a note (or to unsaved text)",
             "Notes related to NOTE by meaning, shared words and links, each with its link "
             "status (linked, backlinked, both, unlinked) and an absolute relevance.",
             'vaultheat related "Projects/Plan.md"',
             'vaultheat related "Projects/Plan.md" --text - --cursor 120 < draft.md')  # fmt: skip
    p.add_argument("note", help="vault-relative path of the note")
    p.add_argument("--text", help="the note's current text ('-' reads stdin)")
    p.add_argument("--cursor", type=int, help="cursor byte offset into the text")
    p.add_argument("--top", type=int, help="notes to return (default: related.top, 10)")
    p.add_argument("--unlinked-only", action="store_true", help="only notes not linked yet")
    p.add_argument("--explain", action="store_true", help="attach each result's score trace")
    p.add_argument("--no-graph", action="store_true",
                   help="skip link heat (notes near the note's own links rise) and heat "
                   "propagation (experimental.search_hops > 0)")  # fmt: skip
    p.add_argument("--no-lexical", action="store_true", help="skip the shared-words stage")
    p.add_argument("--no-votes", action="store_true",
                   help="skip link votes (notes your closest notes link to rise)")  # fmt: skip
    _common(p)

    p = _add(sub, "explain", "why one result is there",
             "The score arithmetic and graph path of one search or related result: by rank "
             "(as `search` or `search --files-only` numbers them) or by chunk id. With --path, "
             "why a note you expected is missing: its rank (or why it was not a candidate), "
             "its best chunk's score parts and the result it would have to beat.",
             'vaultheat explain "how do I get a refund" --files-only --rank 2',
             'vaultheat explain --related "Projects/Plan.md" --rank 1',
             'vaultheat explain "back up my vault" --path "Plugins/Git.md"')  # fmt: skip
    p.add_argument("query", nargs="?", help="the search query")
    p.add_argument("--chunk", type=int, help="chunk id of the search result to explain")
    p.add_argument("--rank", type=int, help="explain the result at this rank (default: 1)")
    p.add_argument(
        "--files-only", action="store_true", help="rank notes as `search --files-only` does"
    )
    p.add_argument(
        "--path",
        metavar="NOTE",
        help="why NOTE is missing: where it landed for QUERY and what kept it down",
    )
    p.add_argument(
        "--top", type=int, help="with --path: the results the search shows (default: search.top)"
    )
    p.add_argument("--related", metavar="NOTE", help="explain a related-notes result of NOTE")
    p.add_argument("--target", help="with --related: the suggested note to explain")
    _common(p)

    p = _add(sub, "inspect", "look at chunks, notes and graph edges",
             "Debugging views of the index: a note's chunks and links, one chunk, or a chunk's "
             "graph neighbours.", 'vaultheat inspect note "Projects/Plan.md"',
             "vaultheat inspect neighbors 42")  # fmt: skip
    p.add_argument("what", choices=["chunk", "note", "neighbors"], help="what to look at")
    p.add_argument("ref", help="a chunk id or a note path")
    _common(p)

    p = _add(sub, "check", "verify the index is consistent",
             "Check that chunks, vectors, graph edges and the lexical index agree. Three "
             "answers: clean (exit 0); interrupted, a run stopped part-way and `vaultheat index` "
             "finishes it (exit 0, says what is pending); inconsistent, the index disagrees with "
             "itself in a way a run does not finish (exit 2, lists the problems).",
             "vaultheat check")  # fmt: skip
    _common(p)

    p = _add(sub, "eval", "measure search and related-notes quality",
             "Score search (nDCG, MRR, recall) on labelled queries and related notes as link "
             "prediction; see docs/eval.md for the set formats.",
             "vaultheat eval --queries set.jsonl --linkpred links.jsonl")  # fmt: skip
    p.add_argument("--queries", type=Path, help="search set (JSONL: query, relevant_files)")
    p.add_argument("--linkpred", type=Path, help="link-prediction set (JSONL: note, relevant)")
    p.add_argument("--variant", choices=["links-removed", "links-as-text"],
                   help="how link queries are rendered (default: each line's own)")  # fmt: skip
    p.add_argument("--mode", choices=["strict", "lenient"], default="strict",
                   help="link leakage handling (default: %(default)s)")  # fmt: skip
    p.add_argument("--sample", type=int, help="evaluate a random sample of N link queries")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default: %(default)s)")
    p.add_argument("--configs", help="comma-separated configurations to run")
    p.add_argument("--split", choices=["all", "tune", "holdout"], default="all",
                   help="which part of the sets (default: %(default)s)")  # fmt: skip
    p.add_argument("--canary", action="store_true", help="also run the link-leak canary")
    p.add_argument("--heldout-links", type=float, metavar="SHARE",
                   help="held-out link prediction: hide SHARE (e.g. 0.2) of the vault's links "
                   "at random and recover them, over --seeds splits (docs/eval.md)")  # fmt: skip
    p.add_argument(
        "--seeds", type=int, default=5, help="held-out links: random splits (default: %(default)s)"
    )
    p.add_argument(
        "--sweep", type=Path, metavar="GRID.toml", help="a parameter sweep (docs/eval.md)"
    )
    _common(p)

    for name, what, desc, ex in (
        ("mcp", "an MCP server on stdio for agents (Claude, Cursor, ...)",
         "Serve the vault's tools (search, related, explain, neighbors, open, research, status, "
         "refresh) over the Model Context Protocol on stdio; uses a running `vaultheat serve` "
         "when there is one (docs/agents.md).", "vaultheat mcp --vault ~/Notes"),
        ("agent", "the JSON-lines agent protocol on stdin/stdout",
         "One JSON request per line in ({\"action\": \"search\", ...}), one JSON reply per line "
         "out, over the same tools as `vaultheat mcp` (docs/agents.md).",
         "echo '{\"action\": \"search\", \"query\": \"refund\"}' | vaultheat agent"),
    ):  # fmt: skip
        p = _add(sub, name, what, desc, ex)
        p.add_argument("--no-server", action="store_true",
                       help="answer in this process even when `vaultheat serve` runs")  # fmt: skip
        _common(p, json_flag=False)

    p = _add(sub, "plugin", "install the Obsidian plugin into a vault, or check it",
             "`install` copies the Obsidian plugin that came with this vaultheat (main.js, "
             "manifest.json, styles.css) into VAULT/.obsidian/plugins/vaultheat/: the only "
             "place it writes, and only files that differ. `status` says whether the vault's "
             "copy is in step with this sidecar.",
             "vaultheat plugin install --vault ~/Notes",
             "vaultheat plugin status --vault ~/Notes")  # fmt: skip
    p.add_argument("action", choices=["install", "status"], help="install | status")
    p.add_argument("--vault", type=Path, required=True, help="the vault folder")
    p.add_argument("--force", action="store_true",
                   help="install into a folder that has no .obsidian folder yet")  # fmt: skip
    p.add_argument("--from", dest="from_folder", type=Path, metavar="DIR",
                   help="install the files in DIR instead (a build of your own)")  # fmt: skip
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logs on stderr")

    p = _add(sub, "serve", "run the localhost JSON API for the Obsidian plugin",
             "Serve the JSON API (docs/api.md) on localhost and keep the index in step with the "
             "vault while it runs.", "vaultheat serve", "vaultheat serve --port 0")  # fmt: skip
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
    from vaultheat.commands import COMMANDS

    handler: Callable[[argparse.Namespace], int] = COMMANDS[args.command]
    try:
        return handler(args)
    except VaultheatError as exc:
        if getattr(args, "json", False):
            from vaultheat.documents import error_document

            print(json.dumps(error_document(exc)))
        print(f"vaultheat: error: {exc.message}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("vaultheat: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
