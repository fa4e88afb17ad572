"""Agents use the vault: one tool table, served over MCP (``vaultheat mcp``) and JSON lines
(``vaultheat agent``).

    tools.py       the table: name, description for an agent, input/output JSON Schema, handler
    backend.py     where answers come from: the in-process Engine, or a running ``vaultheat
                   serve`` (found through its discovery file), chosen per call
    notes.py       read-only views of the vault and index: ``open`` and ``neighbors``
    research.py    bounded retrieve-then-expand
    mcp_server.py  the MCP shell (official SDK, stdio): tools, ``vault://`` resources, prompts
    jsonl.py       the JSON-lines shell: one request per line, one reply per line

Everything here is read-only towards the vault; the only write is ``refresh``, which goes
through the one index writer there is (the server's worker when a server runs).
"""
