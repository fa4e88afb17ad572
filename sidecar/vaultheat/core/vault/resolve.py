"""Resolve link targets to vault files the way Obsidian's ``getFirstLinkpathDest`` does.

Order (observed in Obsidian, see docs of this module's tests): an exact vault path wins
(``[[Note]]`` is ``Note.md`` at the root; ``[[a/Note]]`` is ``a/Note.md``), with ``.md``
appended when needed; ``./`` and ``../`` are relative to the linking note; a path-qualified target
is also tried relative to the linking note's folder; otherwise every file whose name matches is a
candidate (path-qualified targets keep those whose path ends with the target) and the one in the
linking note's own folder wins, then the shortest path string, then the smaller path (for
determinism). Frontmatter aliases are a last resort for bare names. Comparison is NFC +
``str.lower`` (Obsidian's ``toLowerCase``), so names that differ only in case or in Unicode
normal form are the same name.

Indexes are plain dicts built once (O(files)); a lookup is a few dict hits plus a scan of the
files that share one name, remembered per target and linking folder (a resolver never changes).
"""

from __future__ import annotations

import posixpath
import unicodedata
from collections.abc import Iterable, Mapping

from vaultheat.core.models import Link


def fold(name: str) -> str:
    """The comparison form of a name or path: NFC, lower case."""
    return unicodedata.normalize("NFC", name).lower()


def lookup_key(target: str) -> str:
    """The name key a raw link target is looked up by (its last path component, folded)."""
    return fold(target.strip().replace("\\", "/")).rsplit("/", 1)[-1]


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _is_note(path: str) -> bool:
    return path.lower().endswith(".md")


class LinkResolver:
    """Maps raw link targets to vault-relative paths of notes or attachments."""

    def __init__(
        self,
        note_paths: Iterable[str],
        other_paths: Iterable[str] = (),
        aliases: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        self._by_path: dict[str, str] = {}
        self._by_name: dict[str, list[str]] = {}  # full file name (with extension) -> paths
        self._by_stem: dict[str, list[str]] = {}  # note name without ".md" -> paths
        self._by_alias: dict[str, list[str]] = {}
        self._aliases_of: dict[str, list[str]] = {}
        # resolve() by (target, source folder): the answer depends on nothing else
        self._memo: dict[tuple[str, str], str | None] = {}
        paths = sorted({unicodedata.normalize("NFC", p) for p in [*note_paths, *other_paths]})
        for p in paths:
            key = fold(p)
            self._by_path.setdefault(key, p)
            name = key.rsplit("/", 1)[-1]
            self._by_name.setdefault(name, []).append(p)
            if _is_note(p):
                self._by_stem.setdefault(name[:-3], []).append(p)
        for p, names in sorted((aliases or {}).items()):
            p = unicodedata.normalize("NFC", p)
            if fold(p) not in self._by_path:
                continue
            clean = [a.strip() for a in names if isinstance(a, str) and a.strip()]
            self._aliases_of[p] = clean
            for a in clean:
                bucket = self._by_alias.setdefault(fold(a), [])
                if p not in bucket:
                    bucket.append(p)

    def __contains__(self, path: str) -> bool:
        return fold(path) in self._by_path

    def resolve_link(self, link: Link, source_path: str) -> str | None:
        """Like ``resolve``; a same-note link (empty target) resolves to ``source_path``."""
        return self.resolve(link.target, source_path)

    def resolve(self, target: str, source_path: str) -> str | None:
        """Vault-relative path the target points to, or None when nothing matches."""
        if not target.strip():
            return source_path
        key = (target, _folder(source_path))
        if key in self._memo:
            return self._memo[key]
        found = self.candidates(target, source_path, first_only=True)
        hit = self._memo[key] = found[0] if found else None
        return hit

    def candidates(self, target: str, source_path: str, *, first_only: bool = False) -> list[str]:
        """Every file the target could mean, best first (more than one: an ambiguous link)."""
        t = fold(target.strip().replace("\\", "/"))
        if not t:
            return [source_path]
        src_folder = fold(_folder(unicodedata.normalize("NFC", source_path)))
        if t.startswith(("./", "../")) or "/./" in t or "/../" in t:
            joined = posixpath.normpath(posixpath.join(src_folder, t))
            hit = None if joined.startswith("..") else self._exact(joined)
            return [hit] if hit else []
        t = t.lstrip("/")
        hit = self._exact(t)
        if hit is None and "/" in t and src_folder:
            hit = self._exact(f"{src_folder}/{t}")
        if hit is not None and first_only:
            return [hit]
        out = [hit] if hit is not None else []
        name = t.rsplit("/", 1)[-1]
        suffix = "/" + t
        for bucket, tail in ((self._by_name, suffix), (self._by_stem, suffix + ".md")):
            group = [
                p for p in bucket.get(name, ()) if "/" not in t or ("/" + fold(p)).endswith(tail)
            ]
            out.extend(p for p in self._rank(group, src_folder) if p not in out)
        if "/" not in t:
            out.extend(p for p in self._rank(self._by_alias.get(t, []), src_folder) if p not in out)
        return out[:1] if first_only else out

    def _exact(self, key: str) -> str | None:
        return self._by_path.get(key) or self._by_path.get(key + ".md")

    @staticmethod
    def _rank(paths: list[str], src_folder: str) -> list[str]:
        return sorted(paths, key=lambda p: (fold(_folder(p)) != src_folder, len(p), p))

    def keys_for_path(self, path: str) -> set[str]:
        """Lookup keys (see ``lookup_key``) a file answers to: its name, stem and aliases.

        When ``path`` is added or removed, only links whose ``lookup_key(target)`` is in this set
        (plus same-folder relative links) can change their resolution.
        """
        p = unicodedata.normalize("NFC", path)
        name = fold(p).rsplit("/", 1)[-1]
        keys = {name}
        if _is_note(p):
            keys.add(name[:-3])
        keys.update(fold(a) for a in self._aliases_of.get(p, ()))
        return keys

    def names_affected(self, paths: Iterable[str]) -> set[str]:
        """Union of ``keys_for_path`` over ``paths``: targets to re-resolve after a change."""
        out: set[str] = set()
        for p in paths:
            out |= self.keys_for_path(p)
        return out
