"""Lean on lexical evidence when the text is in a script the embedding model was not trained on.

The default model (all-MiniLM-L6-v2) is English-only. Measured on the help vault's Japanese,
Chinese and Russian copies (docs/eval.md), its vectors are close to noise there: related notes
nDCG@10 0.26 (ja) with vectors alone against 0.42 with BM25 alone, and the default fusion --
which trusts vectors -- lands in between. Weighting the two retrievers evenly for such text
beat both (ja 0.451). Latin-script languages (de, es, fr, pt) are not affected: the model
still beats BM25 there, so the rule looks at the script, not at the language.

The rule is per query (a search query, or the note whose related notes are asked for), so a
vault that mixes English and Japanese notes gets the right weights for each. It applies only
when the model is English-only: ``embeddings.languages`` says so (``en``), or ``auto`` and the
model name is one of the English-only families below. A multilingual model never triggers it.
"""

from __future__ import annotations

import dataclasses
import re

from vaultheat.config import EmbeddingSettings, SearchSettings, canonical_model

NON_LATIN_SHARE = 0.5  # share of letters outside the Latin script that triggers the rule
SAMPLE_CHARS = 4000
# English-only sentence-transformers families (names as on the model hub or as packages)
ENGLISH_ONLY = re.compile(
    r"(^|/)(gt-)?all-(minilm|mpnet|distilroberta)|(^|/)bge-(small|base|large)-en"
    r"|(^|/)gte-(small|base|large)$|(^|/)e5-(small|base|large)(-v2)?$|(^|/)msmarco-",
    re.IGNORECASE,
)
# the even weights measured on help/ja (config "lexC" in docs/eval.md)
EVEN = {"vector_weight": 0.5, "lexical_weight": 1.0, "score_vector": 0.5, "score_lexical": 0.5}


def english_only_model(settings: EmbeddingSettings) -> bool:
    if settings.languages == "en":
        return True
    if settings.languages == "multi":
        return False
    return settings.provider == "local" and (
        ENGLISH_ONLY.search(canonical_model(settings.model)) is not None
    )


def non_latin_share(text: str) -> float:
    """Share of the letters (in the first SAMPLE_CHARS characters) outside the Latin script."""
    letters = [c for c in text[:SAMPLE_CHARS] if c.isalpha()]
    if not letters:
        return 0.0
    return sum(not _latin(c) for c in letters) / len(letters)


def _latin(c: str) -> bool:
    code = ord(c)
    # Basic Latin, Latin-1, Latin Extended-A/B, IPA, Latin Extended Additional
    return code <= 0x02AF or 0x1E00 <= code <= 0x1EFF


def model_misses_script(embeddings: EmbeddingSettings, search: SearchSettings, text: str) -> bool:
    return (
        search.script_fallback
        and english_only_model(embeddings)
        and non_latin_share(text) >= NON_LATIN_SHARE
    )


def even_weights(search: SearchSettings) -> SearchSettings:
    """``search`` with vector and lexical evidence weighted evenly (never lowering lexical)."""
    return dataclasses.replace(
        search,
        vector_weight=min(search.vector_weight, EVEN["vector_weight"]),
        lexical_weight=max(search.lexical_weight, EVEN["lexical_weight"]),
        score_vector=min(search.score_vector, EVEN["score_vector"]),
        score_lexical=max(search.score_lexical, EVEN["score_lexical"]),
    )


# -- other languages in a new vault (``vaultheat init``) ----------------------------------------
# The multilingual model is not the default (docs/multilingual.md: English search nDCG@10 drops
# 0.871 -> 0.657, far past the 0.01), and since issue #40 init never swaps the model:
# the English one stays, and a vault whose notes are not mostly English gets the routed second
# space (``embeddings.second_space = "multilingual"``) next to it.
ENGLISH_WORDS = frozenset(
    "the and of to a in is it that for you with on as are this be or can your from by not an "
    "if at have use will which when".split()
)
MIN_NOTES = 20  # fewer notes say too little: leave the second space off
MIN_WORDS = 40  # a Latin-script note needs this many words to be judged
ENGLISH_SHARE = 0.04  # below this share of common English words a Latin note is not English
NON_ENGLISH_NOTES = 0.3  # share of judged notes not in English that turns the second space on
_WORD = re.compile(r"[^\W\d_]+")


def note_is_english(text: str) -> bool | None:
    """True / False, or None when the note is too short to judge."""
    if non_latin_share(text) >= NON_LATIN_SHARE:
        return False
    words = [w.lower() for w in _WORD.findall(text[:SAMPLE_CHARS])]
    if len(words) < MIN_WORDS:
        return None
    return sum(w in ENGLISH_WORDS for w in words) / len(words) >= ENGLISH_SHARE


def other_languages(texts: list[str]) -> tuple[bool, str]:
    """(whether enough of these notes are in other languages than English to want the
    multilingual second space, why in plain words)."""
    verdicts = [v for v in (note_is_english(t) for t in texts) if v is not None]
    if len(verdicts) < MIN_NOTES:
        return False, f"only {len(verdicts)} notes long enough to tell their language"
    other = sum(not v for v in verdicts)
    share = other / len(verdicts)
    if share >= NON_ENGLISH_NOTES:
        return True, f"{other} of {len(verdicts)} sampled notes are not in English"
    return False, f"{len(verdicts) - other} of {len(verdicts)} sampled notes are in English"


# -- which language a text is in (issue #25: route queries and chunks to the model that reads them)
# py3langid (BSD, pure Python + numpy, model bundled in the wheel: no download) decides when the
# text has enough letters; below that, or when its confidence is low, the script rule decides.
# Code spans, fenced code and URLs are dropped first: Obsidian notes mix English identifiers
# into other languages, and those would pull the vote towards English.
MIN_LETTERS = 12  # fewer letters than this: the script rule decides
MIN_CONFIDENCE = 0.5  # below this py3langid's answer is not trusted
_CODE = re.compile(r"```.*?(```|$)|~~~.*?(~~~|$)|`[^`\n]*`|https?://\S+", re.DOTALL)


@dataclasses.dataclass(frozen=True, slots=True)
class Language:
    code: str  # ISO 639-1 ("en", "ru", "zh" ...), "und" when nothing can be said
    confidence: float  # 0..1
    rule: str  # "langid" | "script" | "empty" | "langid-gap" (queries: ``query_language``)


def _strip_code(text: str) -> str:
    return _CODE.sub(" ", text[: SAMPLE_CHARS * 2])[:SAMPLE_CHARS]


def script_language(text: str) -> Language:
    """The script rule: a guess from the letters' scripts alone (no model)."""
    letters = [c for c in text[:SAMPLE_CHARS] if c.isalpha()]
    if not letters:
        return Language("und", 0.0, "empty")
    counts = {"latin": 0, "cyrillic": 0, "kana": 0, "han": 0, "hangul": 0, "other": 0}
    for c in letters:
        o = ord(c)
        if _latin(c):
            counts["latin"] += 1
        elif 0x0400 <= o <= 0x052F:
            counts["cyrillic"] += 1
        elif 0x3040 <= o <= 0x30FF or 0x31F0 <= o <= 0x31FF:
            counts["kana"] += 1
        elif 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF:
            counts["han"] += 1
        elif 0xAC00 <= o <= 0xD7AF or 0x1100 <= o <= 0x11FF:
            counts["hangul"] += 1
        else:
            counts["other"] += 1
    n = len(letters)
    if counts["latin"] / n > 1 - NON_LATIN_SHARE:
        # a Latin-script text too short for the model: English is the vault default
        return Language("en", round(counts["latin"] / n * 0.5, 3), "script")
    if counts["kana"]:  # any kana among Han characters means Japanese
        return Language("ja", round((counts["kana"] + counts["han"]) / n, 3), "script")
    script = max(("cyrillic", "han", "hangul", "other"), key=lambda k: counts[k])
    code = {"cyrillic": "ru", "han": "zh", "hangul": "ko", "other": "und"}[script]
    return Language(code, round(counts[script] / n, 3), "script")


_IDENTIFIER: object | None = None
_FOLD = {"yue": "zh", "wuu": "zh", "nb": "no", "nn": "no"}


def _identifier() -> object:
    global _IDENTIFIER
    if _IDENTIFIER is None:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier

        _IDENTIFIER = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    return _IDENTIFIER


def forget_identifier() -> None:
    """Drop the loaded py3langid model (~75 MB); the next ``detect`` loads it again."""
    global _IDENTIFIER
    _IDENTIFIER = None


def detect(text: str) -> Language:
    """The language of ``text``: py3langid when there is enough text, else the script rule."""
    clean = _strip_code(text)
    script = script_language(clean)
    if script.rule == "empty":
        return script
    letters = sum(c.isalpha() for c in clean)
    if letters < MIN_LETTERS:
        return script
    code, prob = _identifier().classify(clean)  # type: ignore[attr-defined]
    code = _FOLD.get(code, code)
    if prob < MIN_CONFIDENCE:
        return script
    if script.code == "ja" and code == "zh":  # kana present: py3langid's zh is a Han-heavy ja
        return Language("ja", float(prob), "langid")
    return Language(code, round(float(prob), 3), "langid")


# A search query is short, and a short Latin-script query is where py3langid is unsure: then
# ``detect`` says English (the script rule), which sends "usar mi propio dominio para mi sitio
# publicado" to the English model (cosine 0.04 to its answer; #1 in the multilingual space).
# Measured on the 22 queries of the shared sets that fall to that rule (docs/multilingual.md):
# English trails py3langid's top language by at most 0.21 on the 18 English ones (keyword
# queries: "mdadm grow raid0 add disk" 0.21, "luks change passphrase" 0.001) and by 0.24-0.45
# on the 4 Spanish and French ones.
QUERY_EN_GAP = 0.22  # py3langid probability by which English must trail to leave English


def query_language(text: str) -> Language:
    """The language of a search query: ``detect``'s, except that a Latin-script query long
    enough to classify whose English reading py3langid ranks more than ``QUERY_EN_GAP`` below
    its top language is that language (rule ``"langid-gap"``), not English."""
    lang = detect(text)
    if lang.rule != "script" or lang.code != "en":
        return lang
    clean = _strip_code(text)
    if sum(c.isalpha() for c in clean) < MIN_LETTERS:
        return lang
    ranked = _identifier().rank(clean)  # type: ignore[attr-defined]
    top, prob = ranked[0]
    english = next((float(p) for c, p in ranked if c == "en"), 0.0)
    if top != "en" and float(prob) - english > QUERY_EN_GAP:
        return Language(_FOLD.get(top, top), round(float(prob), 3), "langid-gap")
    return lang


def route(query: str) -> str:
    """Either "english" or "multilingual": the vector space a search query should be scored in."""
    code = detect(query).code
    return "english" if code in ("en", "und") else "multilingual"
