"""Find the notes of a vault: every ``*.md`` Obsidian would show, minus what the user excluded.

Design: one iterative ``os.scandir`` walk in sorted order (deterministic, no recursion limit, one
``stat`` per note). Hidden entries (Obsidian hides every name starting with "."), the index
folder, Obsidian's ``userIgnoreFilters`` and the config globs are applied while walking.
Symlinked folders are followed after the plain tree has been walked, each real folder (by device
and inode, i.e. its resolved identity) at most once, so a link back into the vault is reported as
a loop instead of walking forever or indexing a folder twice. Only skips a user could care about
are reported: notes that were left out, hidden folders, symlink loops; not every file in ``.git``.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from vaultheat.config import INDEX_DIRNAME, VaultSettings
from vaultheat.errors import VaultError

SYSTEM_DIRS = frozenset({".obsidian", ".trash", ".git"})
IGNORE_REASON = "excluded by .obsidian/app.json userIgnoreFilters"
INCLUDE_REASON = "not matched by config include globs"


@dataclass(frozen=True)
class FileEntry:
    path: str  # vault-relative POSIX, NFC
    abs_path: Path
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class Skip:
    path: str
    reason: str


@dataclass
class Discovery:
    notes: list[FileEntry] = field(default_factory=list)
    other_files: list[str] = field(default_factory=list)  # attachments: links to them resolve
    skipped: list[Skip] = field(default_factory=list)
    # PDFs and canvases to read, among ``other_files`` (the indexer fills it from
    # ``discover_documents``; they stay attachments too, so links to them resolve)
    documents: list[FileEntry] = field(default_factory=list)


# --- filters -----------------------------------------------------------------------------------


def read_obsidian_ignore_filters(vault_root: Path) -> list[str]:
    """``userIgnoreFilters`` from ``.obsidian/app.json`` ([] when absent or unreadable)."""
    try:
        data = json.loads((vault_root / ".obsidian" / "app.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    filters = data.get("userIgnoreFilters") if isinstance(data, dict) else None
    if not isinstance(filters, list):
        return []
    return [f for f in filters if isinstance(f, str) and f]


class ObsidianIgnore:
    """Obsidian's "Excluded files": a path prefix, or a JavaScript-style ``/regex/flags``."""

    _REGEX_FORM = re.compile(r"^/(.+)/([a-z]*)$", re.S)

    def __init__(self, filters: list[str]) -> None:
        self.prefixes: list[str] = []
        self.regexes: list[re.Pattern[str]] = []
        for f in filters:
            m = self._REGEX_FORM.match(f)
            if m is None:
                self.prefixes.append(unicodedata.normalize("NFC", f))
                continue
            flags = (re.I if "i" in m.group(2) else 0) | (re.S if "s" in m.group(2) else 0)
            try:
                self.regexes.append(re.compile(m.group(1), flags))
            except re.error:
                self.prefixes.append(f)  # not a valid regex: Obsidian would not match it either

    def matches(self, path: str) -> bool:
        return any(path.startswith(p) for p in self.prefixes) or any(
            r.search(path) for r in self.regexes
        )


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """fnmatch-style glob on POSIX paths: ``*`` and ``?`` stay in one folder, ``**`` crosses."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and (j := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : j]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out) + r"\Z", re.S)


class GlobSet:
    """Vault-relative globs. A glob matches a path or any of its folders (so ``Archive`` and
    ``Archive/**`` both cover everything below); a glob without "/" also matches at any depth."""

    def __init__(self, patterns: tuple[str, ...] | list[str]) -> None:
        self.items: list[tuple[str, re.Pattern[str], bool]] = []
        for p in patterns:
            anchored = "/" in p.rstrip("/")
            pat = unicodedata.normalize("NFC", p.strip().strip("/") if anchored else p.strip("/"))
            if pat:
                self.items.append((p, glob_to_regex(pat), anchored))

    def first_match(self, path: str) -> str | None:
        parts = path.split("/")
        prefixes = ["/".join(parts[: k + 1]) for k in range(len(parts))]
        for original, rx, anchored in self.items:
            if anchored:
                if any(rx.match(pre) for pre in prefixes):
                    return original
            elif any(rx.match(part) for part in parts) or any(rx.match(pre) for pre in prefixes):
                return original
        return None


# --- walk --------------------------------------------------------------------------------------


def discover(
    vault_root: Path, settings: VaultSettings, *, index_dir: Path | None = None
) -> Discovery:
    """Every note of the vault (sorted by path), its attachments, and what was skipped and why."""
    root = Path(vault_root)
    if not root.exists():
        raise VaultError(f"vault folder {root} does not exist", path=str(root))
    if not root.is_dir():
        raise VaultError(f"vault path {root} is not a folder", path=str(root))
    walker = _Walker(root, settings, root / INDEX_DIRNAME if index_dir is None else index_dir)
    return walker.run()


def discover_changed(
    vault_root: Path,
    settings: VaultSettings,
    changed: list[str] | tuple[str, ...],
    known: Discovery,
    *,
    index_dir: Path | None = None,
) -> Discovery | None:
    """What a full walk would find if only the ``changed`` paths differ from ``known``.

    The server's file events name the notes that changed; looking at just those (one directory
    listing each, through the walker's own per-file rules) keeps an edit's cost independent of
    the vault's size. ``None`` when a path needs the full walk: a folder (renamed or deleted
    with notes inside), a path below a symlinked folder, or a deleted note whose folder is gone
    too. Edits the events miss are caught by the periodic full scan.
    """
    root = Path(vault_root)
    if not root.is_dir():
        return discover(root, settings, index_dir=index_dir)  # raises the same VaultError
    walker = _Walker(root, settings, root / INDEX_DIRNAME if index_dir is None else index_dir)
    wanted = {unicodedata.normalize("NFC", p) for p in changed}
    known_paths = {e.path for e in known.notes}
    nested = [*known_paths, *known.other_files]
    for rel in sorted(wanted):
        parts = rel.split("/")
        if any(part in ("", ".", "..") for part in parts):
            return None
        if any(p.startswith(rel + "/") for p in nested) or os.path.isdir(root / rel):
            return None  # a folder: its notes are not named one by one
        found = _changed_entry(walker, root, parts)
        if found is _NEEDS_WALK:
            return None
        if found is None:
            if rel in known_paths and not (root / "/".join(parts[:-1])).is_dir():
                return None  # the folder went too (or is named differently on disk)
            continue  # deleted, or not a note Obsidian shows: absent from the result
        entry, disk_rel = found
        walker._file(entry, disk_rel)
    fresh = walker.result
    out = Discovery(
        notes=[e for e in known.notes if e.path not in wanted] + fresh.notes,
        other_files=[p for p in known.other_files if p not in wanted] + fresh.other_files,
        skipped=[s for s in known.skipped if s.path not in wanted] + fresh.skipped,
    )
    out.notes.sort(key=lambda e: e.path)
    out.other_files.sort()
    out.skipped.sort(key=lambda s: (s.path, s.reason))
    return out


_NEEDS_WALK: Final = object()


def _changed_entry(walker: _Walker, root: Path, parts: list[str]) -> Any:
    """The directory entry of one changed path with its on-disk relative path; None when it is
    not there or sits where the walk never looks (hidden folder, the index); ``_NEEDS_WALK``
    below a symlinked folder (the walk follows those once, in its own order)."""
    here = str(root)
    for name in parts[:-1]:
        if name.startswith("."):
            return None
        here = os.path.join(here, name)
        if os.path.islink(here):
            return _NEEDS_WALK
        ident = _identity(here)
        if ident is None or ident == walker.index_id:
            return None
    want = parts[-1]
    try:
        with os.scandir(here) as it:
            for entry in it:
                if unicodedata.normalize("NFC", entry.name) == want:
                    rel = "/".join([*parts[:-1], entry.name])
                    return entry, rel
    except OSError:
        return None
    return None


class _Walker:
    def __init__(self, root: Path, settings: VaultSettings, index_dir: Path) -> None:
        self.root = root
        self.settings = settings
        filters = read_obsidian_ignore_filters(root) if settings.honor_obsidian_ignore else []
        self.ignore = ObsidianIgnore(filters)
        self.exclude = GlobSet(settings.exclude)
        self.include = GlobSet(settings.include)
        self.index_id = _identity(str(index_dir))
        self.visited: set[tuple[int, int]] = set()
        self.deferred: list[tuple[str, str]] = []  # symlinked folders: (abs path, rel path)
        self.result = Discovery()
        self.seen_notes: set[str] = set()
        self.real_root = os.path.realpath(root)

    def run(self) -> Discovery:
        root_id = _identity(str(self.root))
        if root_id is not None:
            self.visited.add(root_id)
        self._walk(str(self.root), "")
        while self.deferred:
            batch = sorted(self.deferred, key=lambda d: d[1])
            self.deferred = []
            for abs_dir, rel in batch:
                ident = _identity(abs_dir)
                if ident is None:
                    continue  # dangling link
                if not _inside(abs_dir, self.real_root):
                    self._skip(rel, OUTSIDE_REASON)
                    continue
                if ident in self.visited:
                    self._skip(rel, _loop_reason(abs_dir, rel, self.root))
                    continue
                self.visited.add(ident)
                self._walk(abs_dir, rel)
        r = self.result
        r.notes.sort(key=lambda e: e.path)
        r.other_files.sort()
        r.skipped.sort(key=lambda s: (s.path, s.reason))
        return r

    def _skip(self, rel: str, reason: str) -> None:
        self.result.skipped.append(Skip(unicodedata.normalize("NFC", rel), reason))

    def _walk(self, top_abs: str, top_rel: str) -> None:
        stack = [(top_abs, top_rel)]
        while stack:
            abs_dir, rel_dir = stack.pop()
            try:
                with os.scandir(abs_dir) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                self._skip(rel_dir or ".", f"cannot read folder ({exc.strerror or exc})")
                continue
            subdirs: list[tuple[str, str]] = []
            for entry in entries:
                rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                if is_dir:
                    sub = self._folder(entry, rel)
                    if sub is not None:
                        subdirs.append(sub)
                else:
                    self._file(entry, rel)
            stack.extend(reversed(subdirs))

    def _folder(self, entry: os.DirEntry[str], rel: str) -> tuple[str, str] | None:
        """The folder to descend into, or None (skipped, or deferred when it is a symlink)."""
        name = entry.name
        if name.startswith("."):
            if name not in SYSTEM_DIRS and _identity(entry.path) != self.index_id:
                self._skip(rel, "hidden folder")
            return None
        ident = _identity(entry.path)
        if ident is not None and ident == self.index_id:
            return None
        if entry.is_symlink():
            self.deferred.append((entry.path, rel))
            return None
        if ident is not None:
            if ident in self.visited:
                self._skip(rel, _loop_reason(entry.path, rel, self.root))
                return None
            self.visited.add(ident)
        return entry.path, rel

    def _file(self, entry: os.DirEntry[str], rel: str) -> None:
        name = entry.name
        is_md = name.lower().endswith(".md")
        if name.startswith("."):
            if is_md:
                self._skip(rel, "hidden file")
            return
        try:
            is_file = entry.is_file()
        except OSError:
            is_file = False
        path = unicodedata.normalize("NFC", rel)
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            if is_md:
                self._skip(rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace"),
                           "file name is not valid UTF-8")  # fmt: skip
            return
        if not is_md:
            if is_file:
                self.result.other_files.append(path)
            return
        if not is_file:
            self._skip(rel, "broken symlink" if entry.is_symlink() else "not a regular file")
            return
        if entry.is_symlink() and not _inside(entry.path, self.real_root):
            self._skip(rel, OUTSIDE_REASON)
            return
        reason = self._excluded(path)
        if reason is not None:
            self._skip(rel, reason)
            return
        try:
            st = entry.stat()
        except OSError as exc:
            self._skip(rel, f"cannot read file ({exc.strerror or exc})")
            return
        if st.st_size > self.settings.max_file_bytes:
            self._skip(rel, f"larger than {self.settings.max_file_bytes} bytes")
            return
        if path in self.seen_notes:
            self._skip(rel, "same path as another note after Unicode normalization")
            return
        self.seen_notes.add(path)
        self.result.notes.append(FileEntry(path, Path(entry.path), st.st_size, st.st_mtime_ns))

    def _excluded(self, path: str) -> str | None:
        if self.ignore.matches(path):
            return IGNORE_REASON
        glob = self.exclude.first_match(path)
        if glob is not None:
            return f"excluded by config glob {glob!r}"
        if self.include.items and self.include.first_match(path) is None:
            return INCLUDE_REASON
        return None


OUTSIDE_REASON = "symlink that leads outside the vault (not followed)"


def _inside(path: str, real_root: str) -> bool:
    """Whether a path, symlinks resolved, stays inside the vault: the sidecar never reads (and
    the API never serves) a file outside it."""
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _loop_reason(abs_dir: str, rel: str, root: Path) -> str:
    """Say "symlink loop" when the link points at one of its own ancestors, else a duplicate."""
    target = os.path.realpath(abs_dir)
    here = os.path.realpath(os.path.join(str(root), os.path.dirname(rel)))
    if here == target or here.startswith(target.rstrip(os.sep) + os.sep):
        return "symlink loop"
    return "symlink to a folder already in the vault"


# --- derived-text documents (PDF, canvas) ---------------------------------------------------

DOCUMENT_KINDS: Final = {"pdf": ".pdf", "canvas": ".canvas"}
DEFAULT_KINDS: Final = ("markdown", "pdf", "canvas")


def discover_documents(
    vault_root: Path,
    settings: VaultSettings,
    disc: Discovery,
    *,
    kinds: tuple[str, ...] = DEFAULT_KINDS,
    max_bytes: dict[str, int] | None = None,
) -> tuple[list[FileEntry], list[Skip]]:
    """The PDFs and canvases among ``disc.other_files`` that the kinds ask for, under the same
    exclusion rules as notes (Obsidian's excluded files, the config's exclude/include globs),
    each stat'ed once; too large ones are skipped with a reason. ``disc`` is left unchanged."""
    root = Path(vault_root)
    walker = _Walker(root, settings, root / INDEX_DIRNAME)
    wanted = tuple(ext for kind, ext in DOCUMENT_KINDS.items() if kind in kinds)
    entries: list[FileEntry] = []
    skipped: list[Skip] = []
    if not wanted:
        return entries, skipped
    for path in disc.other_files:
        low = path.lower()
        ext = next((e for e in wanted if low.endswith(e)), None)
        if ext is None or path.rsplit("/", 1)[-1].startswith("."):
            continue
        reason = walker._excluded(path)
        if reason is not None:
            skipped.append(Skip(path, reason))
            continue
        abs_path = root / path
        try:
            st = abs_path.stat()
        except OSError as exc:
            skipped.append(Skip(path, f"cannot read file ({exc.strerror or exc})"))
            continue
        cap = (max_bytes or {}).get(ext.lstrip("."))
        if cap is not None and st.st_size > cap:
            skipped.append(Skip(path, f"larger than {cap} bytes"))
            continue
        entries.append(FileEntry(path, abs_path, st.st_size, st.st_mtime_ns))
    return entries, skipped
