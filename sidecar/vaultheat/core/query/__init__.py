"""Answering queries: search, related notes and explain over one view of the index (the
retrieval pipeline, fusion, heat and link votes, scoring, routing between vector spaces,
relevance labels, the traces and the result types).

Imports the shared types at ``vaultheat.core``'s top level and ``core.vault``; nothing below
it imports this package (``tests/architecture`` keeps it so).
"""
