"""The one-line summaries ``vaultheat status`` prints: the indexing phases, the files by kind,
the page kinds, the related labels' curve, the chunks' languages and the second vector space."""

from __future__ import annotations

from typing import Any

from vaultheat.console import duration
from vaultheat.core.vault.freshness import plural


def phases_line(phases: dict[str, Any]) -> str:
    """``phases: words done; meaning 41% (1,234 of 3,000 chunks), about 2 min left``."""
    m = phases["meaning"]
    if m["state"] == "done":
        meaning = "meaning done"
    else:
        meaning = f"meaning {m['state']} {m['percent']:.0f}% "
        meaning += f"({m['done']:,} of {m['total']:,} chunks)"
        if m["eta_s"] is not None:
            meaning += f", about {duration(m['eta_s'])} left"
    return f"phases: words {phases['words']['state']}; {meaning}"


_KIND_WORDS = {"markdown": ("note", "notes"), "pdf": ("PDF", "PDFs"),
               "canvas": ("canvas", "canvases")}  # fmt: skip


def kinds_line(kinds: dict[str, dict[str, int]]) -> str:
    """``by kind: 24 notes, 1 PDF, 1 canvas indexed; skipped: 1 PDF`` (skips only when any)."""

    def some(field: str) -> str:
        return ", ".join(plural(c[field], *_KIND_WORDS[k]) for k, c in kinds.items()
                         if k in _KIND_WORDS and (field == "indexed" or c[field]))  # fmt: skip

    skipped = some("skipped")
    return f"by kind: {some('indexed')} indexed" + (f"; skipped: {skipped}" if skipped else "")


def pages_line(pages: dict[str, int]) -> str:
    """``pages: 221 notes, 219 digests, 0 list pages`` (what search weighs,
    core/vault/pagekind.py)."""
    words = {
        "note": ("note", "notes"),
        "digest": ("digest", "digests"),
        "list": ("list page", "list pages"),
        "unclassified": ("unclassified", "unclassified"),
    }
    order = [k for k in words if k in pages] + [k for k in pages if k not in words]
    return "pages: " + ", ".join(plural(pages[k], *words.get(k, (k, k))) for k in order)


def labels_line(fit: dict[str, Any]) -> str:
    """``related labels: fitted on the links of this vault (534 of 1,500 results linked, 150
    notes)`` or the model curve when the vault links too little (no quotes: status text
    never looks like a Python dict)."""
    notes = plural(fit["sampled"], "note")
    seen = f"{fit['linked']:,} of {fit['points']:,} results linked, {notes}"
    if fit["source"] == "vault":
        return f"related labels: fitted on the links of this vault ({seen})"
    return f"related labels: the model curve (too few links to fit: {seen})"


def languages_line(languages: dict[str, int]) -> str:
    """``languages: en 1,234 chunks, de 12, und 3, 5 not detected yet``, most first ("und":
    too short or in a script to name, core/language.py)."""
    counts = [(code, n) for code, n in languages.items() if code != "pending" and n]
    parts = [f"{code} {plural(n, 'chunk') if i == 0 else f'{n:,}'}"
             for i, (code, n) in enumerate(counts)]  # fmt: skip
    pending = languages.get("pending", 0)
    if pending:
        parts.append(f"{pending:,} not detected yet")
    return "languages: " + ", ".join(parts)


def spaces_line(spaces: dict[str, dict[str, Any]], chunks: int) -> str:
    """``multilingual vectors: none yet`` or ``multilingual vectors: 120 of 1,465 chunks``."""
    m = spaces["multilingual"]
    if m["state"] == "empty":
        return "multilingual vectors: none yet"
    line = f"multilingual vectors: {m['vectors']:,} of {plural(chunks, 'chunk')}"
    if m.get("only"):  # chunks in other languages: no English vector, read here only
        line += f" ({m['only']:,} in other languages, read only there)"
    return line
