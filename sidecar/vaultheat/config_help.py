"""What each setting means, for ``vaultheat config list --keys`` and ``config --help``.

One line per key, written for a user. A key added to ``config.py`` without a line here falls
back to its trailing ``# comment`` in the source (a test checks every key has one or the other).
"""

from __future__ import annotations

import dataclasses
import inspect
import re

from vaultheat import config

KEY_HELP: dict[str, str] = {
    "vault.include": "globs of notes to index; empty = every *.md",
    "vault.exclude": "globs of notes never indexed",
    "vault.max_file_bytes": "notes larger than this are skipped with a reason",
    "vault.honor_obsidian_ignore": "skip Obsidian's 'Excluded files' (.obsidian/app.json)",
    "vault.exclude_property": "frontmatter `<name>: exclude` opts a note out",
    "chunking.max_tokens": "chunk size ceiling in tokens; 0 = the model's own window",
    "chunking.target_tokens": "chunk size aimed at; 0 = 75% of max_tokens",
    "chunking.min_chars": "fragments shorter than this merge into a neighbour",
    "chunking.overlap_chars": "overlap between neighbouring chunks (byte ranges)",
    "chunking.header_aliases_tags": "put aliases and tags in the embedded chunk header",
    "embeddings.provider": "local (a model on this machine) | openai (any compatible server)",
    "embeddings.model": "package name, sentence-transformers id or local path of the model",
    "embeddings.backend": "auto (ONNX int8 on CPU, torch on GPU) | onnx | torch",
    "embeddings.precision": "int8 | fp32 for the onnx backend",
    "embeddings.device": "auto | cpu | cuda | mps (torch backend)",
    "embeddings.languages": "auto | en | multi: languages the model understands",
    "embeddings.second_space": "'' (off) | multilingual: a second pass adds multilingual vectors",
    "embeddings.second_space_model": "the second space's model: e5 (multilingual-e5-small) | use"
    " (USE multilingual v3: a fifth of the memory); a change refills the space at the next index",
    "embeddings.batch_size": "texts per embedding call",
    "embeddings.threads": "CPU threads for the model; 0 = the library's default",
    "embeddings.query_prefix": "text put before every query (e5: 'query: ')",
    "embeddings.document_prefix": "text put before every chunk (e5: 'passage: ')",
    "embeddings.base_url": "the openai provider's server URL",
    "embeddings.api_key_env": "name of the environment variable holding the API key",
    "embeddings.max_input_tokens": "remote models: their input window; 0 = 512",
    "embeddings.timeout_s": "remote calls: seconds before giving up",
    "embeddings.retries": "remote calls: retries after a failure",
    "graph.knn_k": "similarity edges per chunk, read only by heat (experimental.search_hops >"
    " 0); 0 = none (the default); with heat on, 8 and then `index --full`",
    "graph.knn_min_sim": "minimum cosine for a similarity edge",
    "graph.same_note": "allow similarity edges between chunks of one note",
    "graph.tag_edges": "connect notes that share a rare tag",
    "graph.tag_max_share": "tags on more than this share of notes make no edges",
    "graph.tag_max_notes": "tags on more notes than this make no edges",
    "search.top": "results per query",
    "search.vector_top": "candidates taken from the vector index",
    "search.lexical_top": "candidates taken from the lexical (BM25) index",
    "search.rrf_k": "reciprocal rank fusion constant",
    "search.vector_weight": "fusion weight of the vector candidates",
    "search.lexical_weight": "fusion weight of the lexical candidates",
    "search.lexical_common_share": "a query word found in more than this share of the chunks"
    " is left out of the lexical (BM25) search and of related notes' lexical query, unless every"
    " word is; 0 = off",
    "search.score_rerank": "weight of the reranker in the final score",
    "search.score_fusion": "weight of the rank-fusion seed score when heat does not run (0 = off)",
    "search.score_vector": "weight of the vector similarity in the final score",
    "search.score_lexical": "weight of the lexical score in the final score",
    "search.score_lexical_weak": "weight of the lexical score when the best vector match is weak"
    " (relevance below 'good') and the query's words are found; 0 = use score_lexical",
    "search.score_title": "weight of the note-name score (the query is a note's title, alias"
    " or file name); 0 = off",
    "search.score_note": "weight of the query's similarity to the whole note (its opening and"
    " the mean of its chunks); 0 = off",
    "search.title_partial": "note-name score of a partial word match at most (0 = exact names"
    " only)",
    "search.title_weight": "RRF weight of the named notes among the candidates",
    "search.title_top": "named notes considered per query",
    "search.files_top_chunks": "chunks per note counted in a note's score",
    "search.files_bonus_chunks": "notes longer than this many chunks get a proportionally"
    " smaller further-chunk bonus; 0 = the plain bonus",
    "search.chunks_per_note": "chunk results: at most this many chunks of one note before the"
    " others'; 0 = off",
    "search.snippet_chars": "characters of chunk text in a result",
    "search.script_fallback": "weigh lexical evidence evenly for scripts the model lacks",
    "rerank.enabled": "rerank the shortlist with a cross-encoder",
    "rerank.model": "cross-encoder model id or path; empty = no reranker",
    "rerank.shortlist": "candidates the reranker rescores",
    "rerank.device": "auto | cpu | cuda | mps",
    "expansion.enabled": "expand queries with a local LLM (variants, HyDE)",
    "expansion.model": "the LLM's model name",
    "expansion.base_url": "the LLM server's URL (openai-compatible)",
    "expansion.api_key_env": "name of the environment variable holding its API key",
    "expansion.variants": "query rewrites asked for",
    "expansion.hyde": "also embed a made-up answer passage",
    "expansion.timeout_s": "seconds before the LLM call gives up",
    "related.top": "related notes shown",
    "related.exclude": "globs of notes never suggested",
    "related.damp": "globs of notes whose score is damped",
    "related.damp_factor": "multiplier for damped notes",
    "related.cursor_window_chars": "text around the cursor that weighs most",
    "related.duplicate_sim": "notes this similar collapse into one suggestion",
    "related.score_fusion": "weight of the rank-fusion seed score when heat does not run",
    "related.score_lexical": "weight of distinctive shared words in related scores",
    "related.second_space_score_note": "the note-level part for a note read in the second"
    " vector space (not in English); 0 = off",
    "server.host": "address the API listens on (loopback only unless --allow-remote)",
    "server.port": "port of the API",
    "server.debounce_ms": "wait after a vault change before indexing",
    "server.scan_interval_s": "seconds between scans for changes made while no events came",
    "server.max_body_bytes": "largest request body accepted",
    "index.cpus": "cores indexing may use (0 = all; the server's index child: all but one)",
    "index.nice": "CPU niceness of indexing, 0-19 (0 = unchanged); battery-friendly: 10+",
    "index.kinds": "which files are read: markdown, pdf, canvas (default all three)",
    "index.pdf_max_bytes": "PDFs larger than this are skipped with a reason",
    "index.pdf_max_pages": "PDFs with more pages than this are skipped with a reason",
    "index.pdf_timeout_s": "seconds one PDF's text extraction may take before it is skipped",
    "index.pdf_memory_mb": "memory bound (MB) of the process that reads a PDF",
    "experimental.search_pointer_credit": "experiment, measured neutral (was"
    " search.pointer_credit): share of a digest's or list page's score that the 1-3 notes its"
    " matching bullet links receive (0 = off)",
    "experimental.related_score_note": "experiment, costs link prediction (was"
    " related.score_note): weight of the similarity to the whole note in related notes"
    " (0 = off)",
    "experimental.search_hops": "experiment, neutral to harmful (was search.hops): graph hops of"
    " heat propagation in search and related notes; 0 = off (2 turns it on; similarity edges"
    " need graph.knn_k too)",
    "experimental.search_decay": "heat propagation: heat kept per hop (was search.decay)",
    "experimental.search_query_floor": "heat propagation: a hop needs at least this similarity"
    " to the query (was search.query_floor)",
    "experimental.search_max_frontier": "heat propagation: most nodes expanded per hop (was"
    " search.max_frontier)",
    "experimental.search_weight_similar": "heat weight of similarity edges (was"
    " search.weight_similar)",
    "experimental.search_weight_link": "heat weight of link edges (was search.weight_link)",
    "experimental.search_weight_backlink": "heat weight of backlink edges (was"
    " search.weight_backlink)",
    "experimental.search_weight_tag": "heat weight of tag edges (was search.weight_tag)",
    "experimental.search_hub_degree": "heat propagation: nodes with more edges than this pass"
    " on less heat (was search.hub_degree)",
    "experimental.search_score_heat": "weight of heat in search scores, when"
    " experimental.search_hops > 0 (was search.score_heat)",
    "experimental.related_score_heat": "weight of heat in related scores, when"
    " experimental.search_hops > 0 (was related.score_heat)",
}


def _source_comments() -> dict[str, str]:
    out: dict[str, str] = {}
    for section in config.SECTIONS:
        cls = type(getattr(config.Settings(), section))
        try:
            src = inspect.getsource(cls)
        except (OSError, TypeError):
            continue
        for m in re.finditer(r"^\s+(\w+): [^=\n]+=.*?#\s*(.+)$", src, re.M):
            out[f"{section}.{m.group(1)}"] = m.group(2).strip()
    return out


def key_help() -> dict[str, tuple[str, object]]:
    """``section.key`` -> (meaning, default) for every setting."""
    comments = _source_comments()
    defaults = config.Settings()
    out: dict[str, tuple[str, object]] = {}
    for section in config.SECTIONS:
        for f in dataclasses.fields(getattr(defaults, section)):
            key = f"{section}.{f.name}"
            meaning = KEY_HELP.get(key) or comments.get(key, "")
            out[key] = (meaning, defaults.get(key))
    return out
