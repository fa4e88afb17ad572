"""The wire schema: one JSON Schema per document and object the API, the CLI and the agents
send, named after the plugin's wire types. The one source every other description is made from:

- the OpenAPI document (``openapi.py``) lists ``component_schemas()`` as its components;
- the agent tools' output schemas are ``document_schema(tag)`` (``agents/tools.py``), the same
  schemas inlined under ``$defs`` so an MCP client needs nothing else to read them; their input
  schemas take the request fields' schemas from ``requests.py``, as the API's requests do;
- docs/api.md's field tables and the plugin's copy for its contract test are generated from
  them (``wire_docs.py``; a test fails when either is stale);
- the tests validate every live answer and golden document against them, and check that the
  documents (``vaultheat/documents.py``) send no field the schema does not declare.

One module per document family, each a small function per named schema:

    base.py        the helpers (obj, ref, d, ...) and the fields several documents share
    requests.py    the request bodies; the fields the agent tools take too, defined once
    search.py      score parts, best chunk, SearchHit, FileHit, SearchDoc
    related.py     RelatedHit, Votes, LinkHeat, RelatedDoc, the batch documents
    explain.py     seed, hops, score arithmetic, pointer credit, Explanation, ExplainDoc
    missing.py     MissingDoc and its parts
    status.py      health, status, note status, ack, the events
    errors.py      the error body
    catalog.py     component_schemas(): all of them, in the order the docs list them
    standalone.py  a named schema made self-contained (the agent tools' output schemas)

Names match ``obsidian-plugin/src/api/types.ts`` one to one so the plugin's contract check can
compare field lists. Required fields are what the server always sends; extra fields are allowed
(documents may grow), except in request bodies, which are closed like the request types that
validate them. A ``description`` on a field is what docs/api.md's table says about it.
"""

from __future__ import annotations

from vaultheat.server.schemas.base import RELEVANCE_LABELS, STR, Schema, ref
from vaultheat.server.schemas.catalog import component_schemas
from vaultheat.server.schemas.search import COMPONENT_NAMES
from vaultheat.server.schemas.standalone import document_schema, name_of, rebase, standalone
from vaultheat.server.schemas.status import EVENT_NAMES, SERVER_STATUS

__all__ = [
    "COMPONENT_NAMES",
    "EVENT_NAMES",
    "RELEVANCE_LABELS",
    "SERVER_STATUS",
    "STR",
    "Schema",
    "component_schemas",
    "document_schema",
    "name_of",
    "rebase",
    "ref",
    "standalone",
]
