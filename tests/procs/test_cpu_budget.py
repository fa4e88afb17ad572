"""The CPU budget of indexing (index.cpus / index.nice): the process is niced and pinned, and the
model's threads follow the cores. Each case runs in a child process (the budget changes the
process it runs in)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vaultheat import procs
from vaultheat.config import Settings
from vaultheat.cpu_budget import budget_cpus, raise_niceness, usable_cpus
from vaultheat.errors import VaultheatError

SIDECAR = Path(__file__).resolve().parents[2] / "sidecar"

PROBE = """
import json, os, sys
from vaultheat.config import Settings
from vaultheat.cpu_budget import apply_cpu_budget
s = Settings().with_overrides(json.loads(sys.argv[1]))
before = os.nice(0)
out = apply_cpu_budget(s, default_cpus=json.loads(sys.argv[2]), min_nice=int(sys.argv[3]))
print(json.dumps({"nice": os.nice(0) - before, "cores": len(os.sched_getaffinity(0)),
                  "threads": out.embeddings.threads}))
"""


def probe(overrides: dict[str, object], default: int | None = None, min_nice: int = 0) -> dict:
    env = {**os.environ, "PYTHONPATH": str(SIDECAR)}
    args = [json.dumps(overrides), json.dumps(default), str(min_nice)]
    out = subprocess.run([sys.executable, "-c", PROBE, *args], env=env, capture_output=True,
                         text=True, check=True)  # fmt: skip
    return json.loads(out.stdout)


cores = usable_cpus()
linux_only = pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or not hasattr(os, "nice"),
    reason="the probe reads niceness and CPU affinity (Linux)",
)


@linux_only
def test_no_budget_changes_nothing() -> None:
    assert probe({}) == {"nice": 0, "cores": cores, "threads": 0}


@linux_only
def test_nice_is_raised() -> None:
    base = os.nice(0)
    got = probe({"index.nice": 5})
    assert got["nice"] == max(0, 5 - base)
    assert probe({"index.nice": 3}, min_nice=10)["nice"] == max(0, 10 - base)


@linux_only
@pytest.mark.skipif(cores < 2, reason="pinning to fewer cores needs at least two")
def test_one_core_pins_and_sizes_the_model_threads() -> None:
    assert probe({"index.cpus": 1}) == {"nice": 0, "cores": 1, "threads": 1}
    # an explicit embeddings.threads is kept
    assert probe({"index.cpus": 1, "embeddings.threads": 3})["threads"] == 3
    # the server's child default (all but one) and index.cpus: the lower wins
    assert probe({"index.cpus": 1}, default=cores - 1)["cores"] == 1
    assert probe({}, default=1)["cores"] == 1


def test_windows_has_no_niceness_and_uses_the_below_normal_class(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Kernel32:
        def GetCurrentProcess(self) -> int:
            return -1  # the pseudo-handle

        def SetPriorityClass(self, handle: int, cls: int) -> bool:
            self.set = (handle, cls)
            return True

    kernel32 = Kernel32()
    assert procs.windows_below_normal_priority(kernel32)
    assert kernel32.set == (-1, procs.BELOW_NORMAL_PRIORITY_CLASS)
    monkeypatch.delattr(os, "nice", raising=False)  # as on Windows
    monkeypatch.setattr(procs, "PLATFORM", "win32")
    monkeypatch.setattr(procs, "win32_kernel32", lambda: kernel32)
    del kernel32.set
    assert raise_niceness(5)
    assert kernel32.set == (-1, procs.BELOW_NORMAL_PRIORITY_CLASS)
    monkeypatch.setattr(procs, "PLATFORM", "darwin-without-nice")
    assert not raise_niceness(5)  # nothing to call: no error either


def test_budget_cpus_caps_at_usable_cores() -> None:
    s = Settings()
    assert budget_cpus(s) is None
    assert budget_cpus(s.with_value("index.cpus", 10_000)) == cores
    assert budget_cpus(s.with_value("index.cpus", 1), default=cores) == 1


def test_bad_nice_is_rejected() -> None:
    with pytest.raises(VaultheatError, match="niceness"):
        Settings().with_value("index.nice", 20)
    with pytest.raises(VaultheatError):
        Settings().with_value("index.cpus", -1)


def test_cli_index_with_a_cpu_budget(vault: Path) -> None:
    """`vaultheat index --cpus 1` with index.nice from the config: indexes as usual."""
    exe = [sys.executable, "-m", "vaultheat.cli"]
    env = {**os.environ, "PYTHONPATH": str(SIDECAR)}
    subprocess.run([*exe, "init", str(vault)], check=True, capture_output=True, env=env)
    for key, value in (("embeddings.provider", "fake"), ("index.nice", "3")):
        subprocess.run([*exe, "config", "set", key, value, "--vault", str(vault)],
                       check=True, capture_output=True, env=env)  # fmt: skip
    proc = subprocess.run([*exe, "index", "--cpus", "1", "--json", "--vault", str(vault)],
                          check=True, capture_output=True, text=True, env=env)  # fmt: skip
    assert json.loads(proc.stdout)["chunks"]["embedded"] > 0
