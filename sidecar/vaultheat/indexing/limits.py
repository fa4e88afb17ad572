"""The indexer's sizes and pacing, and the batching that uses them.

Every batch size, the memory the words phase may hold for the meaning phase, how often a long
run saves its vector file and how nice the second pass runs. The phases read them here, as
``limits.NAME``, when they run: a test (or a tool) that sets one on this module changes the
next run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeVar

from vaultheat.core.models import ParsedNote

# One batch = one transaction and one embedding call. Batches are large because the embedder
# sorts a call's inputs by token length and pads per sub-batch: measured on vaultofknowledge
# (8,294 inputs, ONNX int8), embedding them per 64-note batch took 126 s, per ~1,000 inputs
# 110 s, all at once 105 s. A batch ends at NOTE_BATCH notes or BATCH_BYTES of note text.
NOTE_BATCH = 256
BATCH_BYTES = 1_500_000
GRAPH_BATCH = 2000
# The words phase keeps up to this much embedding-input text in memory for the meaning phase
# of the same run (beyond it, and on a resumed run, inputs are derived again from the notes on
# disk): saves re-reading and re-chunking a typical vault, bounds memory on a huge one.
HOLD_BYTES = 64_000_000
# The meaning phase embeds about this many chunks per model call and transaction: large enough
# for the embedder's length-sorted sub-batches (see above), small enough that status moves and
# a stop request is honoured within seconds.
EMBED_BATCH = 512
# Within a transaction's chunks the model is called on this many at a time (sorted by length,
# so no slower than one call: docs/benchmarks.md), and a stop request
# (pause, shutdown, a note saved meanwhile: server/worker.py) ends the transaction early with
# the chunks embedded so far: a saved note waits for at most this many chunks' vectors.
EMBED_STOP_EVERY = 256
SAVE_EVERY_S = 60.0
# The second pass's model runs in a thread of its own at least this nice (Linux, where niceness
# is per thread and the threads it starts, the model's, inherit it): the English index, queries
# and the user's other work come first. Elsewhere it runs at the process's priority.
SECOND_PASS_NICE = 10

W = TypeVar("W")  # what a batch carries along each parsed note (the words phase's work item)


def note_batches(
    parsed: list[tuple[W, ParsedNote]], max_notes: int, max_bytes: int
) -> Iterator[list[tuple[W, ParsedNote]]]:
    """Consecutive batches of at most ``max_notes`` notes, cut once ``max_bytes`` of note text
    is reached (a batch always holds at least one note)."""
    batch: list[tuple[W, ParsedNote]] = []
    size = 0
    for item in parsed:
        batch.append(item)
        size += len(item[1].raw)
        if len(batch) >= max_notes or size >= max_bytes:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def note_groups(
    notes: list[tuple[int, str, str, int]], max_chunks: int
) -> Iterator[list[tuple[int, str, str, int]]]:
    """Consecutive groups of notes (id, path, hash, chunks awaiting a vector) holding about
    ``max_chunks`` such chunks (a group always holds at least one note)."""
    group: list[tuple[int, str, str, int]] = []
    n = 0
    for item in notes:
        group.append(item)
        n += item[3]
        if n >= max_chunks:
            yield group
            group, n = [], 0
    if group:
        yield group
