"""What the CLI's commands share with its parser: exit codes, output and progress on stderr.

Its own module so ``cli`` (parsing, dispatch) and ``commands`` (the work) both import it and
neither imports the other's internals.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from vaultheat.errors import InputError

EXIT_OK, EXIT_EMPTY, EXIT_ERROR = 0, 1, 2
# a rate needs a few seconds of work behind it: the first ticks of a stage are noise
MIN_RATE_S = 2.0


def emit(args: argparse.Namespace, doc: dict[str, Any], human: Callable[[], str]) -> None:
    if getattr(args, "json", False):
        sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(human() + "\n")
    sys.stdout.flush()


class ProgressBar:
    """Progress on stderr: a bar redrawn in place on a TTY; without one (a log, a pipe, the
    plugin) a plain line every ``interval_s`` seconds. Rate and ETA appear only after
    ``MIN_RATE_S`` seconds of a stage with work done."""

    def __init__(
        self,
        *,
        stream: TextIO | None = None,
        tty: bool | None = None,
        clock: Callable[[], float] = time.perf_counter,
        interval_s: float = 10.0,
    ) -> None:
        self.out = stream or sys.stderr
        self.tty = self.out.isatty() if tty is None else tty
        self.clock = clock
        self.interval_s = interval_s
        self.stage = ""
        self.t0 = clock()
        self.last = 0.0

    def _speed(self, done: int, total: int, now: float) -> str:
        elapsed = now - self.t0
        if done <= 0 or elapsed < MIN_RATE_S:
            return ""
        rate = done / elapsed
        eta = (total - done) / rate
        return f"  {rate:,.1f}/s  eta {duration(eta)}"

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = self.clock()
        if stage != self.stage:
            if self.tty and self.stage:
                self.out.write("\n")
            self.stage, self.t0, self.last = stage, now, now
            if not self.tty:
                self.out.write(f"vaultheat: {stage}: {total:,} to do\n")
        if self.tty and (now - self.last > 0.1 or done == total):
            width = 30
            filled = int(width * done / max(total, 1))
            self.out.write(
                f"\r{stage:>6} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}"
                f"{self._speed(done, total, now)}   "
            )
            self.last = now
        elif not self.tty and done == total:
            self.out.write(
                f"vaultheat: {stage}: done {done:,} of {total:,} in {duration(now - self.t0)}\n"
            )
        elif not self.tty and now - self.last >= self.interval_s:
            pct = 100 * done / max(total, 1)
            self.out.write(
                f"vaultheat: {stage}: {done:,} of {total:,} ({pct:.0f}%)"
                f"{self._speed(done, total, now)}\n"
            )
            self.last = now
        self.out.flush()

    def close(self) -> None:
        if self.tty and self.stage:
            self.out.write("\n")
            self.out.flush()


def duration(seconds: float) -> str:
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    m, s = divmod(s, 60)
    return f"{m}m{s:02d}s" if m < 60 else f"{m // 60}h{m % 60:02d}m"


def parse_property(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise InputError(f"--property takes KEY=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out
