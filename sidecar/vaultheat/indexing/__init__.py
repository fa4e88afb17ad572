"""The indexer, room by room: a run's steps in order (``run``: ``Indexer``), the words phase
(``words``), the meaning phase and the second pass (``meaning``), graph repair (``graph``), the
state both phases share (``base``), the run's sizes and pacing (``limits``) and what a run
reports and records (``report``: ``IndexReport``, the content and input hashes, the stored
settings).

Import from the module that holds a name; this package imports none of them, so the engine or
``status`` can use ``report`` without loading the phases.
"""
