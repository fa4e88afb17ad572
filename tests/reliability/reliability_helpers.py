"""Shared helpers of the reliability tests: hostile vaults, CLI runs under limits, fingerprints.

Why a module and not a conftest: the generators are also used by ``bench/load_test.py`` and
test files import the types. Everything here writes only into temporary folders.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
MEMORY_LIMIT = 3 * 1024**3  # address-space cap of every CLI child (RLIMIT_AS)
CHILD_ENV = {**os.environ, "PYTHONPATH": str(REPO / "sidecar"), "OMP_NUM_THREADS": "1",
             "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}  # fmt: skip

NFC_NAME = unicodedata.normalize("NFC", "Café crème")
NFD_NAME = unicodedata.normalize("NFD", "Café crème")


def _limit_memory() -> None:  # runs in the child between fork and exec
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@dataclass
class CliResult:
    rc: int
    stdout: str
    stderr: str
    peak_rss: int = 0  # bytes: the child's own peak resident memory

    def json(self) -> Any:
        return json.loads(self.stdout)


def run_cli(args: Sequence[str], *, timeout: float = 120, limit_memory: bool = True) -> CliResult:
    """``python -m vaultheat ARGS`` in a child with a wall-clock timeout and a memory cap.

    The child is reaped with ``os.wait4`` so its own peak RSS is known: the process-wide
    ``RUSAGE_CHILDREN`` maximum would count any earlier child of the test run (a model test's
    export, a server's forkserver) against this one."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "vaultheat", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=CHILD_ENV,
        preexec_fn=_limit_memory if limit_memory else None,
    )
    out: dict[str, bytes] = {}
    readers = [
        threading.Thread(target=lambda n=n, f=f: out.__setitem__(n, f.read()), daemon=True)
        for n, f in (("stdout", proc.stdout), ("stderr", proc.stderr))
    ]
    for t in readers:
        t.start()
    deadline = time.monotonic() + timeout
    for t in readers:
        t.join(max(0.0, deadline - time.monotonic()))
    if any(t.is_alive() for t in readers):
        proc.kill()
        proc.wait()
        raise subprocess.TimeoutExpired(proc.args, timeout)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return CliResult(
        proc.returncode,
        out.get("stdout", b"").decode("utf-8", "replace"),
        out.get("stderr", b"").decode("utf-8", "replace"),
        usage.ru_maxrss * 1024,  # Linux: KiB
    )


def init_fake_index(vault: Path) -> None:
    """An index folder whose config selects the deterministic fake embedder."""
    from vaultheat.config import Settings, save_settings
    from vaultheat.paths import index_paths

    paths = index_paths(vault)
    paths.root.mkdir(parents=True, exist_ok=True)
    save_settings(paths.config, Settings().with_value("embeddings.provider", "fake"))


def write_bulk_notes(vault: Path, count: int, *, words: int = 150) -> list[str]:
    """``count`` distinct notes linked in a ring (same shape as the server tests' notes)."""
    topics = ["coffee", "garden", "travel", "finance", "reading", "music", "cooking", "sleep"]
    out = []
    for i in range(count):
        topic = topics[i % len(topics)]
        rel = f"Bulk/{topic}/Bulk note {i:04d}.md"
        body = " ".join(f"{topic}{(i * 7 + k) % 97} word{k % 13}" for k in range(words))
        text = f"# Bulk {i}\n\nAbout {topic}. [[Bulk note {(i + 1) % count:04d}]]\n\n{body}\n"
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
        out.append(rel)
    return out


BILLION_LAUGHS = (
    "---\n"
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
    "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
    "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"
    "tags: *i\n"
    "aliases: *i\n"
    "---\n# Laughs\n\nA billion laughs in the frontmatter.\n"
)

HUGE_ANCHOR = (
    "---\nbig: &big " + json.dumps(["x" * 1000] * 500) + "\n"
    + "\n".join(f"k{i}: *big" for i in range(200))
    + "\ntags: *big\n---\n# Anchor\n\nOne huge anchor used 200 times.\n"
)  # fmt: skip

EXOTIC_FRONTMATTER = (
    "---\n"
    "1: integer key\n"
    "2024-01-02: date key\n"
    "null: null key\n"
    "true: bool key\n"
    "3.5: float key\n"
    "? [a, b]\n: list key\n"
    "? {x: 1}\n: map key\n"
    "when: 2024-01-02T03:04:05Z\n"
    "blob: !!binary aGVsbG8gd29ybGQ=\n"
    "set: !!set {a, b, c}\n"
    "omap: !!omap [a: 1, b: 2]\n"
    "tags: [1, 2.5, null, [nested], {k: v}]\n"
    "aliases: 42\n"
    "evil: !!python/object/apply:os.system ['echo pwned']\n"
    "---\n# Exotic\n\nFrontmatter with exotic types.\n"
)


# name -> bytes; names are vault-relative paths. Every one must end up indexed or skipped.
def hostile_notes(*, big_mb: int = 5) -> dict[str, bytes]:
    links = " ".join(f"[[Target {i % 300}]]" for i in range(10_000))
    notes: dict[str, bytes] = {
        "invalid utf8.md": b"# Bad bytes \xff\xfe\x80\x81\n\nLatin-1 caf\xe9 and \xc3\x28 junk.\n",
        "utf16.md": "# UTF-16 note\n\nwith a BOM\n".encode("utf-16"),
        "nul bytes.md": b"# Nul\x00 heading\n\ntext\x00with\x00nuls\x00\n",
        "big file.md": b"# Big\n\n" + (b"big file filler words " * 50 + b"\n") * (big_mb * 1000),
        "long line.md": b"# Long line\n\n" + b"word " * 200_000 + b"\n",
        "long token.md": b"# Long token\n\n" + b"x" * 1_000_000 + b"\n",
        "deep list flat.md": ("# Deep\n\n" + "- " * 5000 + "bottom\n").encode(),
        "deep quote.md": ("# Quote\n\n" + ">" * 5000 + " bottom\n").encode(),
        "deep list indented.md": "".join("  " * i + f"- level {i}\n" for i in range(1000)).encode(),
        "many headings.md": "".join(
            f"{'#' * (1 + i % 6)} Heading {i}\nline {i}\n" for i in range(5000)
        ).encode(),
        "hashes only.md": ("#" * 5000 + "\n" + "#" * 7 + " not a heading\n").encode(),
        "billion laughs.md": BILLION_LAUGHS.encode(),
        "huge anchor.md": HUGE_ANCHOR.encode(),
        "exotic frontmatter.md": EXOTIC_FRONTMATTER.encode(),
        "broken frontmatter.md": b"---\nkey: [unclosed\n  - :\n---\n# Broken\n\nbody\n",
        "unterminated frontmatter.md": b"---\ntitle: never closed\n\n# Body\n\ntext\n",
        "frontmatter list.md": b"---\n- a\n- b\n---\n# List top\n\nbody\n",
        "empty.md": b"",
        "only frontmatter.md": b"---\ntitle: x\n---\n",
        "crlf bom.md": b"\xef\xbb\xbf# CRLF\r\n\r\nwindows line ends\r\n[[empty]]\r\n",
        "ten thousand links.md": f"# Links\n\n{links}\n".encode(),
        "self link.md": (
            b"# Self\n\n[[self link]] [[self link#Self]] [[self link#^blk]] ![[self link]]"
            b" [[#Self]] [me](self%20link.md)\n\npara ^blk\n"
        ),
        "Circle A.md": b"# A\n\n![[Circle B]] and ![[Circle B#B]]\n",
        "Circle B.md": b"# B\n\n![[Circle A]] and ![[Circle A#A]]\n",
        "weird links.md": (
            "# Weird\n\n[[]] [[|]] [[#]] [[^]] [[a|b|c]] [["
            + "[" * 1000
            + "]]"
            + " [[x#y#z^w]] ![[]] [](<>) [x](javascript:alert(1)) [[../../etc/passwd]]"
            " [[/abs/path]] [[C:\\win]] " + "[[unclosed " * 500 + "\n"
        ).encode(),
        "code fences.md": ("# Fences\n\n" + "```\n" * 2001 + "tail\n").encode(),
        "html.md": ("# Html\n\n" + "<div>" * 5000 + "text" + "</div>" * 10 + "\n").encode(),
        "math.md": ("# Math\n\n$$" + "\\frac{" * 3000 + "\n").encode(),
        "table.md": ("# Table\n\n" + "|" * 10000 + "\n" + "|-" * 5000 + "|\n").encode(),
        f"{NFC_NAME}.md": b"# NFC\n\nthe composed spelling\n",
        f"{NFD_NAME}.md": b"# NFD\n\nthe decomposed spelling\n",
        "Case Note.md": b"# Case\n\nlinks to [[case note]] and [[CASE NOTE]]\n",
        "with # hash.md": b"# Hash\n\nnamed with a hash [[with # hash]]\n",
        "with | pipe.md": b"# Pipe\n\nnamed with a pipe [[with | pipe]]\n",
        "with ^ caret.md": b"# Caret\n\nnamed with a caret [[with ^ caret]]\n",
        "emoji \U0001f525\U0001f468\u200d\U0001f469\u200d\U0001f467.md": (
            "# Emoji \U0001f525\n\nfire \U0001f525 family\n"
        ).encode(),
        "\u05e2\u05d1\u05e8\u05d9\u05ea \u0627\u0644\u0639\u0631\u0628\u064a\u0629.md": (
            "# \u05e9\u05dc\u05d5\u05dd\n\nRTL text \u202eevil\u202c and "
            "\u0645\u0631\u062d\u0628\u0627\n"
        ).encode(),
        "zero\u200bwidth.md": b"# Zero width\n\nzero width space in the name\n",
        "dir/.hidden note.md": b"# Hidden\n\nin a dot file\n",
        "deep/" + "/".join(f"d{i}" for i in range(40)) + "/deep path.md": b"# Deep path\n",
        "Target 0.md": b"# Target 0\n\nlinked ten thousand times ^blk\n",
    }
    return notes


def write_hostile_vault(vault: Path, *, big_mb: int = 5) -> dict[str, bytes]:
    notes = hostile_notes(big_mb=big_mb)
    for rel, data in notes.items():
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return notes


def fingerprint(engine: Any) -> tuple[object, ...]:
    """Chunk ranges and hashes, resolved links and link edges: equal iff two indexes agree."""
    db = engine.views.store().db
    chunks = db.execute(
        "SELECT n.path, c.ordinal, c.byte_start, c.byte_end, c.embed_hash FROM chunks c "
        "JOIN notes n ON n.id = c.note_id ORDER BY 1, 2"
    ).fetchall()
    links = db.execute(
        "SELECT n.path, l.raw, l.resolved_path FROM links l JOIN notes n ON n.id = l.note_id "
        "ORDER BY 1, 2, 3"
    ).fetchall()
    edges = db.execute(
        "SELECT a.path, ca.ordinal, b.path, cb.ordinal FROM edges e "
        "JOIN chunks ca ON ca.id = e.src JOIN notes a ON a.id = ca.note_id "
        "JOIN chunks cb ON cb.id = e.dst JOIN notes b ON b.id = cb.note_id "
        "WHERE e.kind = 'link' ORDER BY 1, 2, 3, 4"
    ).fetchall()
    return tuple(map(tuple, chunks)), tuple(map(tuple, links)), tuple(map(tuple, edges))
