"""The ``serve`` flags, declared once for ``vaultheat serve`` and ``python -m vaultheat.server``.

Defaults are not repeated here: a flag left out is ``None`` and ``serve`` takes the value from
``[server]`` in the index's config (host 127.0.0.1, port 51764; ``--port 0`` picks a free one).
Light on purpose: the CLI builds its parser without importing aiohttp.
"""

from __future__ import annotations

import argparse


def add_serve_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default=None, help="address (default: server.host, 127.0.0.1)")
    p.add_argument("--port", type=int, default=None,
                   help="port, 0 = any free one (default: server.port, 51764)")  # fmt: skip
    p.add_argument("--allow-remote", action="store_true",
                   help="remote mode: allow a non-loopback --host; the token is then required on "
                        "every endpoint (health too), Obsidian mobile's origins are accepted and "
                        "wrong tokens are rate limited")  # fmt: skip
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="also accept this Host name, e.g. a tailnet or LAN name (repeatable; "
                        "needs --allow-remote)")  # fmt: skip
    p.add_argument("--tls-cert", default=None, metavar="PEM", help="serve HTTPS with this cert")
    p.add_argument("--tls-key", default=None, metavar="PEM", help="the key for --tls-cert")
    p.add_argument("--low-priority", action="store_true", help="index at a lower CPU priority")
    p.add_argument("--threads", type=int, default=None,
                   help="CPU threads for the model (default: the library's)")  # fmt: skip
    p.add_argument("--index-cpus", type=int, default=None, metavar="N",
                   help="cores the index child may use (default: index.cpus, else all but "
                        "one)")  # fmt: skip
    p.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="also exclude these vault-relative globs for this run (repeatable; not saved)",
    )
    p.add_argument("--parent-pid", type=int, default=None, metavar="PID",
                   help="exit cleanly once process PID is gone (the Obsidian plugin passes "
                        "its own, so no sidecar outlives the app)")  # fmt: skip


def serve_from_args(args: argparse.Namespace) -> int:
    """Run the server from parsed arguments (``--vault``/``--index-dir`` and the flags above)."""
    from vaultheat.server.serve import serve

    return serve(
        args.vault,
        args.index_dir,
        host=args.host,
        port=args.port,
        allow_remote=args.allow_remote,
        allow_hosts=tuple(getattr(args, "allow_host", ()) or ()),
        tls_cert=getattr(args, "tls_cert", None),
        tls_key=getattr(args, "tls_key", None),
        low_priority=args.low_priority,
        threads=args.threads,
        index_cpus=getattr(args, "index_cpus", None),
        exclude=tuple(getattr(args, "exclude", ()) or ()),
        parent_pid=getattr(args, "parent_pid", None),
    )
