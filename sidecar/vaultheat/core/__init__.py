"""Logic of vaultheat: no aiohttp, no CLI library, no global state, no storage class, no SQL.

The index is read only through the protocols in ``ports.py`` (``vaultheat.storage`` implements
them) and models only through ``vaultheat.providers.base``; ``tests/architecture`` keeps it so.

Two rooms and the shared types between them: ``core.vault`` reads a vault into notes, chunks
and links; ``core.query`` answers search, related notes and explain; the modules here (the row
types and protocols, requests, the graph view, languages, the LRU) import neither room, and
``core.vault`` never imports ``core.query``.
"""
