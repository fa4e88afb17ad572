"""bench/heldout_links.py: configurations made on the command line, run on an indexed vault."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench.bench_scripts import load_bench
from tests.conftest import open_fake_index

hl = load_bench("heldout_links")


def test_parse_sets_groups_keys_by_name_and_reads_json() -> None:
    made = hl.parse_sets(
        ["ppr:related.link_heat=ppr", "ppr:related.link_heat_weight=0.2", "nv:related.votes=false"]
    )
    assert made == {
        "ppr": {"related.link_heat": "ppr", "related.link_heat_weight": 0.2},
        "nv": {"related.votes": False},
    }


@pytest.mark.parametrize("bad", ["ppr", "ppr:related.link_heat", ":related.votes=false"])
def test_parse_sets_rejects_malformed_items(bad: str) -> None:
    with pytest.raises(SystemExit):
        hl.parse_sets([bad])


VAULT = {
    "A.md": "# A\n\nCoffee roasting at home. See [[B]] and [[C]] and [[D]].\n",
    "B.md": "# B\n\nCoffee beans and roasting. Back to [[A]]; also [[C]].\n",
    "C.md": "# C\n\nGrinding coffee for brewing. See [[D]].\n",
    "D.md": "# D\n\nBrewing coffee with water. See [[E]].\n",
    "E.md": "# E\n\nWater for coffee. See [[A]].\n",
}


def test_main_runs_builtin_and_made_configs_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    for name, text in VAULT.items():
        (vault / name).write_text(text, encoding="utf-8")
    open_fake_index(vault).close()
    out = tmp_path / "out.json"
    rc = hl.main(["--vault", str(vault), "--configs", "default,ra", "--set",
                  "ra:related.link_heat=ra", "--seeds", "2", "--share", "0.3",
                  "--json", str(out)])  # fmt: skip
    assert rc == 0
    docs = json.loads(out.read_text(encoding="utf-8"))
    assert [c["name"] for c in docs[0]["configs"]] == ["default", "ra"]
    assert docs[0]["paired"][0]["config"] == "ra" and docs[0]["seeds"] == [0, 1]
    assert "held-out links" in capsys.readouterr().out


def test_main_refuses_a_bad_made_setting_before_running(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    for name, text in VAULT.items():
        (vault / name).write_text(text, encoding="utf-8")
    open_fake_index(vault).close()
    from vaultheat.errors import VaultheatError

    with pytest.raises(VaultheatError):
        hl.main(["--vault", str(vault), "--configs", "x", "--set", "x:related.link_heat=bogus"])
