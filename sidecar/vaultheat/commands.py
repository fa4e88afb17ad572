"""The CLI's commands: parse arguments into requests, call the engine, print the result."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from vaultheat import index_status
from vaultheat.config import (
    MOVED,
    load_settings,
    save_settings,
    settings_to_dict,
)
from vaultheat.console import (
    EXIT_EMPTY,
    EXIT_ERROR,
    EXIT_OK,
    ProgressBar,
    emit,
    parse_property,
)
from vaultheat.core.query.results import NoteHit
from vaultheat.core.requests import RelatedRequest, SearchRequest
from vaultheat.core.vault.freshness import plural
from vaultheat.documents import (
    explain_document,
    missing_document,
    related_document,
    search_document,
    status_document,
)
from vaultheat.errors import IndexExistsError, IndexMissingError, InputError, NotFoundError
from vaultheat.paths import index_paths
from vaultheat.render import (
    also_in,
    describe_heat,
    describe_votes,
    locator_text,
    partial_space_notice,
    render_explain,
    render_missing,
    space_mark,
    trace_lines,
)
from vaultheat.status_lines import (
    kinds_line,
    labels_line,
    languages_line,
    pages_line,
    phases_line,
    spaces_line,
)
from vaultheat.vault_setup import prepare_index

if TYPE_CHECKING:
    from vaultheat.engine import Engine

Hit = TypeVar("Hit")


def _engine(args: argparse.Namespace, **kw: Any) -> Engine:
    from vaultheat.engine import Engine

    return Engine.open(args.vault, args.index_dir, **kw)


def _relevance(r: dict[str, Any]) -> str:
    return f"{r['relevance_label']:<6} {r['relevance']:.2f}"


def _under(lines: list[str]) -> list[str]:
    """Lines set under a result line (its trace), each indented, a title's own break too."""
    return ["      " + line for line in "\n".join(lines).splitlines()]


def _no_good_match(results: list[dict[str, Any]], ranked_by: str = "meaning") -> list[str]:
    if ranked_by == "words":
        return ["no close match in meaning: ranked by the words found (a result with the query's"
                " words comes first even when its relevance reads weak)"]  # fmt: skip
    if results and all(r["relevance_label"] == "weak" for r in results):
        best = max(r["relevance"] for r in results)
        return [f"no good match: every result is weak (best relevance {best:.2f})"]
    return []


def _first_few(items: list[dict[str, str]], key: str, n: int = 5) -> list[str]:
    lines = [f"  {item['path']}: {item[key]}" for item in items[:n]]
    if len(items) > n:
        lines.append(f"  ... and {len(items) - n} more (`vaultheat status --json` lists all)")
    return lines


def warn_if_not_ready(engine: Any) -> None:
    """One stderr line when answers come from an index that is behind the vault."""
    fresh = index_status.freshness(engine)
    if fresh.state != "ready":
        print(
            f"vaultheat: note: the index is {fresh.state} ({fresh.detail}); "
            "answers may miss or misplace notes",
            file=sys.stderr,
        )


def cmd_init(args: argparse.Namespace) -> int:
    paths = index_paths(args.vault_arg or args.vault, args.index_dir)
    if paths.exists():
        raise IndexExistsError(
            f"{paths.root} already holds a vaultheat index; use `vaultheat index` to update it",
            index_dir=str(paths.root),
        )
    second = prepare_index(paths, second_space_off=getattr(args, "no_second_space", False))
    doc = {"schema": "vaultheat.init.v1", "vault": str(paths.vault), "index_dir": str(paths.root),
           "config": str(paths.config), "model": "english",
           "model_reason": "the default: init never changes it (other languages get the second "
                           "space)",
           "second_space": second.space, "second_space_model": second.model,
           "second_space_reason": second.why}  # fmt: skip
    shown = f"{second.space} with {second.model}" if second.space else "off"
    emit(
        args,
        doc,
        lambda: (
            f"initialized {paths.root}\nembedding model: english (default)\n"
            f"second space: {shown} ({second.why})\nnext: vaultheat index"
        ),
    )
    return EXIT_OK


def _cpu_budget(config: Any, cpus: int | None) -> dict[str, Any]:
    """Apply ``index.cpus``/``index.nice`` (``--cpus`` wins) to this process before the model
    loads; the overrides that size the model's threads to it."""
    from vaultheat.cpu_budget import apply_cpu_budget

    settings = load_settings(config)
    overrides: dict[str, Any] = {"index.cpus": cpus} if cpus else {}
    budget = apply_cpu_budget(settings.with_overrides(overrides))
    if budget.embeddings.threads != settings.embeddings.threads:
        overrides["embeddings.threads"] = budget.embeddings.threads
    return overrides


def cmd_index(args: argparse.Namespace) -> int:
    paths = index_paths(args.vault, args.index_dir)
    if not paths.exists():
        raise IndexMissingError(f"no index for {paths.vault}; run `vaultheat init` first")
    engine = _engine(args, overrides=_cpu_budget(paths.config, getattr(args, "cpus", None)))
    bar = ProgressBar()
    try:
        report = engine.index(full=args.full, progress=bar)
    finally:
        bar.close()
    doc = {"schema": "vaultheat.index.v1", "vault": str(paths.vault), **report.to_dict()}

    def human() -> str:
        n, c = report.notes, report.chunks
        lines = [
            f"notes: {n['added']} added, {n['modified']} modified, {n['deleted']} deleted, "
            f"{n['renamed']} renamed, {n['unchanged']} unchanged "
            f"({plural(report.notes_indexed, 'note')} indexed, {report.excluded} opted out)",
            f"chunks: {c['embedded']} embedded, {c['reused']} reused, {c['deleted']} deleted",
            f"skipped: {plural(report.skipped, 'file')}   "
            f"took {report.timings.get('total', 0):.2f}s",
        ]
        lines += _first_few(report.skipped_files, "reason")
        if report.warnings:
            noted = len({w["path"] for w in report.warnings})
            lines.append(f"warnings: {plural(noted, 'note')} indexed with a problem")
            lines += _first_few(report.warnings, "warning")
        return "\n".join(lines)

    emit(args, doc, human)
    return EXIT_OK


def cmd_status(args: argparse.Namespace) -> int:
    engine = _engine(args)
    doc = status_document(engine.status())

    def human() -> str:
        links, model = doc["links"], doc["model"]
        total = links["resolved"] + links["unresolved"]
        share = f" ({100 * links['resolved'] / total:.1f}% resolved)" if total else ""
        lines = [
            f"vault: {doc['vault']}",
            f"state: {doc['state']} ({doc['state_detail']})",
            f"notes: {doc['notes']:,} indexed, {doc['excluded']:,} opted out   "
            f"chunks: {doc['chunks']:,}   tags: {doc['tags']:,}",
            kinds_line(doc["kinds"]),
            *([pages_line(doc["pages"])] if doc.get("pages") else []),
            *([labels_line(doc["labels"])] if doc.get("labels") else []),
            *(
                [languages_line(doc["languages"])]
                if doc.get("chunks") and "languages" in doc
                else []
            ),
            *([spaces_line(doc["spaces"], doc["chunks"])] if "spaces" in doc else []),
            f"links: {links['resolved']:,} resolved, {links['unresolved']:,} unresolved{share}",
            "edges: " + ", ".join(f"{n:,} {kind}" for kind, n in doc["edges"].items()),
            f"model: {model['name']} ({model['provider']}, {model['backend']})",
            phases_line(doc["phases"]),
            f"skipped: {plural(len(doc['skipped']), 'file')}",
        ]
        lines += _first_few(doc["skipped"], "reason", 50)
        return "\n".join(lines)

    emit(args, doc, human)
    return EXIT_OK if doc["notes"] else EXIT_EMPTY


def cmd_config(args: argparse.Namespace) -> int:
    if args.action == "keys":
        from vaultheat.config_help import key_help

        keys = key_help()
        doc = {"schema": "vaultheat.config.v1",
               "keys": {k: {"meaning": m, "default": d} for k, (m, d) in keys.items()}}  # fmt: skip
        emit(args, doc, lambda: "\n".join(
            f"{k} = {json.dumps(list(d) if isinstance(d, tuple) else d)}\n    {m}"
            for k, (m, d) in keys.items()))  # fmt: skip
        return EXIT_OK
    paths = index_paths(args.vault, args.index_dir)
    settings = load_settings(paths.config)
    if args.action == "list":
        values_by_section = settings_to_dict(settings)
        doc = {"schema": "vaultheat.config.v1", "settings": values_by_section}

        def listing() -> str:
            lines = []
            for section, values in values_by_section.items():
                if not isinstance(values, dict) or not values:
                    continue
                lines += [f"{section}.{k} = {json.dumps(v)}" for k, v in values.items()]
            return "\n".join(lines)

        emit(args, doc, listing)
        return EXIT_OK
    if not args.key:
        raise InputError("config get/set needs a KEY like search.top")
    args.key = MOVED.get(args.key, args.key)  # a moved key answers under its new name
    if args.action == "get":
        value = settings.get(args.key)
        value = list(value) if isinstance(value, tuple) else value
        emit(args, {"schema": "vaultheat.config.v1", "key": args.key, "value": value},
             lambda: json.dumps(value) if not isinstance(value, str) else value)  # fmt: skip
        return EXIT_OK
    if args.value is None:
        raise InputError("config set needs a VALUE")
    if not paths.exists():
        raise IndexMissingError(f"no index for {paths.vault}; run `vaultheat init` first")
    new = settings.with_value(args.key, args.value)
    save_settings(paths.config, new)
    value = new.get(args.key)
    value = list(value) if isinstance(value, tuple) else value
    emit(args, {"schema": "vaultheat.config.v1", "key": args.key, "value": value},
         lambda: f"{args.key} = {json.dumps(value)}")  # fmt: skip
    return EXIT_OK


def _search_request(args: argparse.Namespace, query: str, top: int) -> SearchRequest:
    rerank = True if args.rerank else (False if args.no_rerank else None)
    expand = True if args.expand else (False if args.no_expand else None)
    return SearchRequest(
        query=query,
        top=top if args.top is None else args.top,
        files_only=args.files_only,
        explain=args.explain,
        lexical=not args.no_lexical,
        graph=not args.no_graph,
        rerank=rerank,
        expand=expand,
        folder=args.folder,
        tag=args.tag,
        property=parse_property(args.property),
    )


def cmd_search(args: argparse.Namespace) -> int:
    engine = _engine(args)
    warn_if_not_ready(engine)
    if args.full_text:
        engine = engine.with_settings(
            engine.settings.with_value("search.snippet_chars", 10_000_000)
        )
    if args.batch:
        stream = sys.stdin if args.batch == "-" else open(args.batch, encoding="utf-8")  # noqa: SIM115
        any_results = False
        with stream:
            for line in stream:
                line = line.strip()
                if not line:
                    continue
                query = line
                if line.startswith("{"):
                    try:
                        query = json.loads(line)["query"]
                    except (ValueError, KeyError, TypeError) as exc:
                        raise InputError(f"bad batch line: {line[:80]!r}") from exc
                one = _search_request(args, query, engine.settings.search.top)
                doc = search_document(engine.search(SearchRequest.from_dict(one.__dict__)))
                any_results = any_results or bool(doc["results"])
                sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
                sys.stdout.flush()
        return EXIT_OK if any_results else EXIT_EMPTY
    query = args.query
    if query is None or query == "-":
        query = sys.stdin.read().strip()
    if not query:
        raise InputError("no query given")
    req = SearchRequest.from_dict(_search_request(args, query, engine.settings.search.top).__dict__)
    doc = search_document(engine.search(req))

    def human() -> str:
        if not doc["results"]:
            return "\n".join(["no results", *partial_space_notice(doc)])
        out = []
        for r in doc["results"]:
            head = f"{r['rank']:>2}. {r['score']:.3f}  {_relevance(r)}  {r['path']}"
            loc = locator_text(r.get("best_chunk") or r)  # a PDF's page, a canvas's card
            mark = space_mark(r)  # "  · multilingual": read in the second space
            if doc["files_only"]:
                out.append((f"{head} {loc}" if loc else head) + mark)
            elif loc:
                out.append(f"{head} {loc}  [{r['found_by']}]{mark}")
                out.append("      " + r["text"][:160].replace("\n", " "))
            else:
                where = " > ".join(r["heading_path"]) or "(top)"  # as explain says it
                span = f"{r['line_start']}-{r['line_end']}"
                out.append(f"{head}:{span}  {where}  [{r['found_by']}]{mark}")
                out.append("      " + r["text"][:160].replace("\n", " "))
            if r.get("duplicates"):
                out.append("      " + also_in(r["duplicates"]))
            if r.get("explain"):
                out += _under(trace_lines(r["explain"]))
        out += _no_good_match(doc["results"], doc["ranked_by"])
        out += partial_space_notice(doc)
        return "\n".join(out)

    emit(args, doc, human)
    return EXIT_OK if doc["results"] else EXIT_EMPTY


def cmd_related(args: argparse.Namespace) -> int:
    engine = _engine(args)
    warn_if_not_ready(engine)
    text = args.text
    if text == "-":
        text = sys.stdin.read()
    req = RelatedRequest(
        path=args.note,
        text=text,
        cursor=args.cursor,
        top=engine.settings.related.top if args.top is None else args.top,
        unlinked_only=args.unlinked_only,
        explain=args.explain,
        graph=not args.no_graph,
        lexical=not args.no_lexical,
        votes=not args.no_votes,
    )
    doc = related_document(engine.related(RelatedRequest.from_dict(req.__dict__)))

    def human() -> str:
        if not doc["results"]:
            return "\n".join(["no related notes", *partial_space_notice(doc)])
        lines = []
        for r in doc["results"]:
            head = f"{r['rank']:>2}. {r['score']:.3f}  {_relevance(r)}  {r['path']}"
            loc = locator_text(r["best_chunk"])
            lines.append(f"{head}{' ' + loc if loc else ''}  ({r['link_status']}){space_mark(r)}")
            if r.get("explain"):  # the trace has the votes line, with every voter
                lines += _under(trace_lines(r["explain"]))
            else:
                if r.get("votes"):
                    lines.append(f"      {describe_votes(r['votes'], shown=3)}")
                if r.get("link_heat"):
                    lines.append(f"      link heat {describe_heat(r['link_heat'])}")
        return "\n".join(lines + _no_good_match(doc["results"]) + partial_space_notice(doc))

    emit(args, doc, human)
    return EXIT_OK if doc["results"] else EXIT_EMPTY


def _at_rank(results: Sequence[Hit], rank: int | None, what: str) -> Hit:
    rank = 1 if rank is None else rank
    if rank < 1:
        raise InputError(f"--rank {rank}: ranks start at 1")
    if rank > len(results):
        raise NotFoundError(
            f"--rank {rank}: {what} has only {plural(len(results), 'result')}",
            rank=rank,
            results=len(results),
        )
    return results[rank - 1]


def cmd_explain(args: argparse.Namespace) -> int:
    engine = _engine(args)
    note_score: float | None = None
    if args.path is not None:
        return _explain_missing(args, engine)
    if args.top is not None:
        raise InputError("--top goes with --path (the results the search shows)")
    if args.related:
        req = RelatedRequest(path=args.related, top=100)
        target = args.target
        if target is None:
            results = engine.related(req).results
            target = _at_rank(results, args.rank, f"related to {args.related}").path
        doc = explain_document(engine.explain(req, target))
    else:
        if not args.query:
            raise InputError("explain needs a QUERY (or --related NOTE)")
        sreq = SearchRequest(query=args.query, top=100, files_only=args.files_only)
        chunk = args.chunk
        if chunk is None:
            hit = _at_rank(engine.search(sreq).results, args.rank, "this query")
            # files-only ranks notes: explain the note's best chunk, the one shown for it
            if isinstance(hit, NoteHit):
                chunk, note_score = hit.best_chunk.chunk_id, hit.score
            else:
                chunk = hit.chunk_id
        doc = explain_document(engine.explain(sreq, chunk))
    emit(args, doc, lambda: render_explain(doc, note_score=note_score))
    return EXIT_OK


def _explain_missing(args: argparse.Namespace, engine: Any) -> int:
    if not args.query:
        raise InputError("explain --path needs a QUERY: the search the note is missing from")
    if any(v is not None for v in (args.chunk, args.rank, args.target, args.related)):
        raise InputError(
            "--path explains one note: it takes no --chunk, --rank, --related or --target"
        )
    top = engine.settings.search.top if args.top is None else args.top
    sreq = SearchRequest(query=args.query, top=top, files_only=args.files_only)
    doc = missing_document(engine.explain_missing(sreq, args.path))
    emit(args, doc, lambda: render_missing(doc))
    return EXIT_OK


def cmd_inspect(args: argparse.Namespace) -> int:
    from vaultheat.index_inspect import inspect_doc, render_inspect

    engine = _engine(args)
    doc = inspect_doc(engine, args.what, args.ref)
    emit(args, doc, lambda: render_inspect(doc))
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from vaultheat.check import check_index, describe_check

    engine = _engine(args)
    doc = check_index(engine)
    emit(args, doc, lambda: describe_check(doc))
    return EXIT_OK if doc["ok"] else EXIT_ERROR


def cmd_eval(args: argparse.Namespace) -> int:
    from vaultheat.evaluation.cli import run_eval_command

    return run_eval_command(args)


def cmd_serve(args: argparse.Namespace) -> int:
    from vaultheat.server.options import serve_from_args

    return serve_from_args(args)


def cmd_plugin(args: argparse.Namespace) -> int:
    from vaultheat import plugin

    if args.action == "install":
        report = plugin.install(args.vault, plugin.find_plugin(args.from_folder), force=args.force)
        emit(args, report.to_dict(), lambda: plugin.describe(report))
        return EXIT_OK
    try:
        source: plugin.PluginSource | None = plugin.find_plugin(args.from_folder)
    except NotFoundError:
        source = None  # nothing to compare the files with: versions only
    report = plugin.status(args.vault, source)
    emit(args, report.to_dict(), lambda: plugin.describe(report))
    return EXIT_OK if report.state == "current" else EXIT_EMPTY


def _agent_backend(args: argparse.Namespace) -> Any:
    from vaultheat.agents.backend import AutoBackend

    return AutoBackend(index_paths(args.vault, args.index_dir), prefer_server=not args.no_server)


def cmd_mcp(args: argparse.Namespace) -> int:
    from vaultheat.agents.mcp_server import serve_mcp

    return serve_mcp(_agent_backend(args))


def cmd_agent(args: argparse.Namespace) -> int:
    from vaultheat.agents.jsonl import serve_jsonl

    return serve_jsonl(_agent_backend(args))


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "init": cmd_init,
    "index": cmd_index,
    "status": cmd_status,
    "config": cmd_config,
    "search": cmd_search,
    "related": cmd_related,
    "explain": cmd_explain,
    "inspect": cmd_inspect,
    "check": cmd_check,
    "eval": cmd_eval,
    "plugin": cmd_plugin,
    "serve": cmd_serve,
    "mcp": cmd_mcp,
    "agent": cmd_agent,
}
