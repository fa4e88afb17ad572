"""The indexer's state and what both of its phases use: the settings, model and callbacks of a
run, the embedding inputs held between the phases, a stored note read and chunked again as the
words phase did, and the vector file opened for writing.

``IndexerBase`` is the common ground of ``WordsPhase`` (indexing/words.py) and
``MeaningPhase`` (indexing/meaning.py); ``Indexer`` (indexing/run.py) is both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vaultheat.config import EmbeddingSettings, Settings
from vaultheat.core.models import ChunkDraft, ParsedNote
from vaultheat.core.vault.derived_notes import document_kind, read_document
from vaultheat.core.vault.discovery import FileEntry
from vaultheat.core.vault.parsing import parse_note
from vaultheat.core.vault.sizing import chunk_for
from vaultheat.indexing.report import ProgressFn
from vaultheat.paths import IndexPaths
from vaultheat.providers.base import Embedder
from vaultheat.providers.registry import make_embedder, second_space_settings
from vaultheat.storage.store import Store
from vaultheat.storage.vectorspace import VectorSpace
from vaultheat.storage.vectorsync import open_vectors


class IndexerBase:
    """A run's settings, model, callbacks and the state its phases share."""

    def __init__(
        self,
        paths: IndexPaths,
        settings: Settings,
        embedder: Embedder,
        *,
        progress: ProgressFn | None = None,
        should_stop: Callable[[], bool] | None = None,
        make_second: Callable[[EmbeddingSettings], Embedder] = make_embedder,
    ) -> None:
        self.paths = paths
        self.settings = settings
        self.embedder = embedder
        # the second space's model (embeddings.second_space), built only when the pass runs
        self._second_settings = second_space_settings(settings.embeddings)
        self._make_second = make_second
        self.progress = progress or (lambda stage, done, total: None)
        self.should_stop = should_stop or (lambda: False)
        # embedding inputs the words phase stored without a vector, up to HOLD_BYTES of text
        self._held: dict[str, str] = {}
        # with a second pass, the meaning phase leaves them held for it (popped there)
        self._keep_held = self._second_settings is not None
        self._held_bytes = 0
        self._awaiting: set[int] = set()  # notes this run stored with a chunk lacking a vector
        self._scan_all = True
        self._doc_skips: dict[str, list[Any]] = {}  # PDFs/canvases skipped: stat, caps, reason


    def _open_vectors(self, store: Store, manifest: dict[str, Any]) -> VectorSpace:
        dim = manifest.get("dimension")
        if dim is None:
            dim = self.embedder.dimension
            with store.transaction():
                store.set_manifest(dimension=dim, model=self.embedder.name)
        return open_vectors(store, self.paths.vectors, int(dim), self.embedder.fingerprint)


    def _reparse(self, path: str, raw: bytes) -> ParsedNote | None:
        """A stored note (or PDF, canvas) parsed again from its bytes, as the words phase did."""
        if document_kind(path) is None:
            return parse_note(path, raw, exclude_property=self.settings.vault.exclude_property)
        abs_path = self.paths.vault / path
        st = abs_path.stat()
        entry = FileEntry(path, abs_path, st.st_size, st.st_mtime_ns)
        doc = read_document(entry, raw, self.settings, self.embedder.max_tokens)
        return None if isinstance(doc, str) else doc

    def _chunk(self, note: ParsedNote) -> list[ChunkDraft]:
        if note.drafts is not None:  # a PDF or canvas: chunked when read
            return note.drafts
        return chunk_for(note, self.settings, self.embedder)
