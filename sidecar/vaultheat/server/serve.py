"""``vaultheat serve``: one long-lived server per vault, from start to a clean exit.

Order of events: take the per-index server lock (a second server exits 2 and names the first),
set up a vault never indexed the way ``vaultheat init`` does (``vault_setup``: the config with
the routed second space, the ``.gitignore``; the Obsidian plugin never runs init), open the
engine (the worker then builds the index in the background while health and status already
answer), listen, write the 0600 discovery file with a fresh random token, and wait for
SIGINT/SIGTERM, an authenticated ``POST /v1/shutdown``, or (with ``--parent-pid``) the end of
the process that started it: the Obsidian plugin passes its own pid, because the app does not
unload plugins when it quits, and a sidecar must not outlive it. Then it stops listening, ends
event streams, lets the index child finish its batch in flight and save (a child still busy after
5 s is killed: only that uncommitted batch is lost), removes the discovery file and returns 0.

Non-loopback hosts need ``allow_remote``: the token then travels in clear text over a network,
which is the user's call to make, with a warning.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import signal
import ssl
import sys
from collections.abc import Callable
from pathlib import Path

from vaultheat.config import load_settings
from vaultheat.engine import Engine
from vaultheat.errors import IndexExistsError, VaultheatError
from vaultheat.paths import IndexPaths, index_paths
from vaultheat.procs import process_running
from vaultheat.providers.base import Embedder
from vaultheat.server.app import create_app
from vaultheat.server.discovery import (
    AlreadyServing,
    ServerInfo,
    ServerLock,
    format_url,
    now_iso,
    remove_discovery,
    server_lock_path,
    write_discovery,
)
from vaultheat.server.middleware import is_loopback_host
from vaultheat.server.runner import start_site
from vaultheat.server.state import STATE
from vaultheat.vault_setup import is_fresh, prepare_index

log = logging.getLogger("vaultheat.server")

EXIT_OK = 0
EXIT_ERROR = 2
PARENT_POLL_S = 1.0


def _say(message: str) -> None:
    print(f"vaultheat: {message}", file=sys.stderr, flush=True)


def serve(
    vault: Path | None,
    index_dir: Path | None,
    *,
    host: str | None = None,
    port: int | None = None,
    allow_remote: bool = False,
    allow_hosts: tuple[str, ...] = (),
    tls_cert: str | None = None,
    tls_key: str | None = None,
    low_priority: bool = False,
    threads: int | None = None,
    index_cpus: int | None = None,
    exclude: tuple[str, ...] = (),
    embedder: Embedder | None = None,
    parent_pid: int | None = None,
) -> int:
    """Run the server until it is told to stop; returns the process exit code (0 or 2).

    ``host``/``port`` default to ``[server]`` in the index's config; ``port=0`` picks a free one.
    ``threads`` caps the embedding model's CPU threads; ``low_priority`` lowers the index
    worker's scheduling priority. ``exclude`` adds vault-relative globs to ``vault.exclude``
    for this run only (the Obsidian plugin passes its excluded folders): nothing is written,
    neither to the vault nor to the index's config, and a restart without them indexes the
    notes again. ``parent_pid``: exit 0 (discovery file removed) within about a second of that
    process ending. An injected ``embedder`` (tests, evaluations) skips the new-vault set-up:
    the config it writes names a real second-space model, which would load beside the fake.
    """
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="vaultheat: %(message)s")
    if parent_pid is not None and not process_running(parent_pid):
        _say(f"--parent-pid {parent_pid}: no such process is running")
        return EXIT_ERROR
    try:
        paths = index_paths(vault, index_dir)
        # an injected embedder means the caller owns the models: a written config would add
        # the real second-space model beside it
        fresh = embedder is None and is_fresh(paths)
        paths.root.mkdir(parents=True, exist_ok=True)
    except (VaultheatError, OSError) as exc:
        _say(getattr(exc, "message", str(exc)))
        return EXIT_ERROR
    lock = ServerLock(server_lock_path(paths.server), paths.server)
    try:
        lock.acquire()
    except AlreadyServing as exc:
        where = f"at {exc.info.url} (pid {exc.info.pid})" if exc.info else "(starting up)"
        _say(f"a server is already running for {paths.vault} {where}")
        return EXIT_ERROR
    try:
        if fresh and not _set_up(paths):
            return EXIT_ERROR
        return _serve_locked(
            paths,
            host=host,
            port=port,
            allow_remote=allow_remote,
            allow_hosts=allow_hosts,
            tls=(tls_cert, tls_key),
            low_priority=low_priority,
            threads=threads,
            index_cpus=index_cpus,
            exclude=exclude,
            embedder=embedder,
            parent_pid=parent_pid,
        )
    finally:
        lock.release()


def _set_up(paths: IndexPaths) -> bool:
    """Give a vault never indexed init's config; False when it cannot be written."""
    try:
        second = prepare_index(paths)
    except IndexExistsError:
        return True  # `vaultheat init` ran meanwhile: its config stands
    except OSError as exc:
        _say(f"cannot write {paths.config}: {exc.strerror or exc}")
        return False
    shown = f"{second.space} with {second.model}" if second.space else "off"
    log.info(
        "set up %s as `vaultheat init` does: second space %s (%s)", paths.root, shown, second.why
    )
    return True


def _serve_locked(
    paths: IndexPaths,
    *,
    host: str | None,
    port: int | None,
    allow_remote: bool,
    allow_hosts: tuple[str, ...],
    tls: tuple[str | None, str | None],
    low_priority: bool,
    threads: int | None,
    index_cpus: int | None,
    exclude: tuple[str, ...],
    embedder: Embedder | None,
    parent_pid: int | None,
) -> int:
    overrides: dict[str, object] = {"embeddings.threads": threads} if threads else {}
    if index_cpus:
        overrides["index.cpus"] = index_cpus
    try:
        if exclude:
            configured = load_settings(paths.config).vault.exclude
            overrides["vault.exclude"] = tuple(dict.fromkeys((*configured, *exclude)))
        engine = Engine.open(
            paths.vault, paths.root, overrides=overrides, embedder=embedder, require_index=False
        )
    except VaultheatError as exc:
        _say(exc.message)
        return EXIT_ERROR
    settings = engine.settings.server
    host = host or settings.host
    port = settings.port if port is None else port
    try:
        extra_hosts, ssl_context = remote_policy(host, allow_remote, allow_hosts, *tls)
    except RemoteRefused as exc:
        _say(str(exc))
        return EXIT_ERROR
    if allow_remote:
        clear = "" if ssl_context else " The token travels unencrypted (no --tls-cert)."
        _say(
            f"WARNING: remote mode on {host}: every endpoint needs the token (in {paths.server})."
            f"{clear} Use only on a network you trust. Accepted Host names: loopback, "
            f"{', '.join(extra_hosts) or 'none else'}."
        )
    if not paths.exists():
        _say(f"no index yet for {paths.vault}: building it in the background")
    token = secrets.token_urlsafe(32)
    return asyncio.run(
        _run(
            engine,
            paths,
            host.strip("[]"),
            port,
            token,
            extra_hosts,
            low_priority,
            parent_pid,
            remote=allow_remote,
            ssl_context=ssl_context,
        )
    )


class RemoteRefused(Exception):
    """A ``serve`` address/TLS combination that is refused before anything listens."""


def remote_policy(
    host: str,
    allow_remote: bool,
    allow_hosts: tuple[str, ...] = (),
    tls_cert: str | None = None,
    tls_key: str | None = None,
) -> tuple[tuple[str, ...], ssl.SSLContext | None]:
    """The extra ``Host`` names to accept and the TLS context, or :class:`RemoteRefused`.

    A non-loopback ``host`` needs ``allow_remote``; so do ``allow_hosts`` and TLS."""
    bare = host.strip("[]")
    if not allow_remote:
        if not is_loopback_host(bare):
            raise RemoteRefused(
                f"refusing to listen on {host}: only loopback addresses are allowed unless "
                "--allow-remote is given (then every endpoint needs the token)"
            )
        if allow_hosts or tls_cert or tls_key:
            raise RemoteRefused("--allow-host and --tls-cert/--tls-key need --allow-remote")
        return (), None
    if bool(tls_cert) != bool(tls_key):
        raise RemoteRefused("--tls-cert and --tls-key go together: give both or neither")
    ctx: ssl.SSLContext | None = None
    if tls_cert and tls_key:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        try:
            ctx.load_cert_chain(tls_cert, tls_key)
        except (OSError, ssl.SSLError) as exc:
            raise RemoteRefused(f"cannot load --tls-cert/--tls-key: {exc}") from exc
    names = [bare] if not is_loopback_host(bare) and bare not in ("0.0.0.0", "::") else []
    names += [h.strip().strip("[]") for h in allow_hosts if h.strip()]
    return tuple(dict.fromkeys(names)), ctx


async def _run(
    engine: Engine,
    paths: IndexPaths,
    host: str,
    port: int,
    token: str,
    extra_hosts: tuple[str, ...],
    low_priority: bool,
    parent_pid: int | None,
    *,
    remote: bool = False,
    ssl_context: ssl.SSLContext | None = None,
) -> int:
    app = create_app(
        engine,
        engine.settings.server,
        token,
        extra_hosts=extra_hosts,
        remote=remote,
        low_priority=low_priority,
    )
    try:
        runner, bound = await start_site(app, host, port, ssl_context)
    except OSError as exc:
        _say(f"cannot listen on {format_url(host, port)}: {exc.strerror or exc}")
        return EXIT_ERROR
    pid = os.getpid()
    info = ServerInfo(
        url=format_url(host, bound).replace("http://", "https://", 1 if ssl_context else 0),
        host=host,
        port=bound,
        pid=pid,
        token=token,
        vault=str(paths.vault),
        started_at=now_iso(),
    )
    stop = app[STATE].stop_requested  # also set by POST /v1/shutdown
    uninstall = install_stop_signals(asyncio.get_running_loop(), stop)
    watcher = asyncio.create_task(_watch_parent(parent_pid, stop)) if parent_pid else None
    try:
        write_discovery(paths.server, info)
        _say(f"serving {paths.vault} at {info.url} (pid {pid}); token in {paths.server}")
        await stop.wait()
        _say("shutting down")
    finally:
        if watcher is not None:
            watcher.cancel()
        uninstall()
        try:
            await runner.cleanup()
        finally:
            remove_discovery(paths.server, pid)
    _say("stopped")
    return EXIT_OK


def install_stop_signals(
    loop: asyncio.AbstractEventLoop, stop: asyncio.Event, platform: str = sys.platform
) -> Callable[[], None]:
    """Make the shutdown signals set ``stop``; returns the function that undoes it.

    POSIX: ``loop.add_signal_handler`` for SIGINT and SIGTERM. Windows' event loops have no
    ``add_signal_handler``: plain ``signal.signal`` handlers for SIGINT (Ctrl+C), SIGBREAK
    (Ctrl+Break) and SIGTERM (raised in-process only) hand
    ``stop.set`` to the loop thread-safely; the proactor loop wakes on a signal by itself.
    """
    if platform != "win32":
        posix = (signal.SIGINT, signal.SIGTERM)
        for sig in posix:
            loop.add_signal_handler(sig, stop.set)

        def remove() -> None:
            for sig in posix:
                loop.remove_signal_handler(sig)

        return remove

    def on_signal(signum: int, frame: object) -> None:
        loop.call_soon_threadsafe(stop.set)

    names = ("SIGINT", "SIGBREAK", "SIGTERM")
    signals = [getattr(signal, name) for name in names if hasattr(signal, name)]
    previous = {sig: signal.signal(sig, on_signal) for sig in signals}

    def uninstall() -> None:
        for sig, handler in previous.items():
            signal.signal(sig, handler)

    return uninstall


async def _watch_parent(pid: int, stop: asyncio.Event) -> None:
    """Set ``stop`` once process ``pid`` is gone (polled: portable, and a second is soon enough)."""
    while not stop.is_set():
        if not process_running(pid):
            _say(f"the parent process {pid} is gone: stopping")
            stop.set()
            return
        await asyncio.sleep(PARENT_POLL_S)
