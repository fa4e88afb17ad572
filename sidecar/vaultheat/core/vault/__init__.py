"""Reading a vault: its files (discovery, binary and size checks), each note parsed into text,
links and chunks (PDFs and canvases too), the lexical text the word index holds, link
resolution, page kinds, the kNN lists, and what ``status`` says of the index.

Imports only the shared types at ``vaultheat.core``'s top level, never ``core.query``
(``tests/architecture`` keeps it so).
"""
