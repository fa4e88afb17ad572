"""``install_stop_signals``: both platforms' branches on this machine, with real signals."""

from __future__ import annotations

import asyncio
import signal

import pytest

from vaultheat.server.serve import install_stop_signals


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_shutdown_signal_sets_stop_and_uninstall_restores(
    platform: str, signum: signal.Signals
) -> None:
    before = signal.getsignal(signum)

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        uninstall = install_stop_signals(loop, stop, platform)
        try:
            if platform == "win32":  # plain handlers: no add_signal_handler on Windows loops
                assert signal.getsignal(signum) not in (before, signal.SIG_DFL)
            signal.raise_signal(signum)
            await asyncio.wait_for(stop.wait(), 30)
        finally:
            uninstall()

    asyncio.run(main())
    assert signal.getsignal(signum) == before


def test_windows_branch_does_not_use_add_signal_handler() -> None:
    class NoSignalsLoop:
        def add_signal_handler(self, *args: object) -> None:
            raise NotImplementedError  # as Windows' event loops do

        def call_soon_threadsafe(self, callback: object) -> None:
            self.called = callback

    loop = NoSignalsLoop()
    stop = asyncio.Event()
    uninstall = install_stop_signals(loop, stop, "win32")  # type: ignore[arg-type]
    try:
        handler = signal.getsignal(signal.SIGINT)
        assert callable(handler)
        handler(signal.SIGINT, None)
        assert loop.called == stop.set
    finally:
        uninstall()
