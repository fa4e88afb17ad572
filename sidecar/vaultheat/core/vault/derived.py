"""Chunks of derived text (PDF pages, canvas cards): extracted text plus a locator.

Design: a Markdown chunk is an exact byte slice of its note; a PDF or canvas chunk cannot be (its
text is what the extractor or the JSON decoder produced), so its locator is the page range or the
card id instead of bytes. PDFs are chunked per page first, then as notes are: a long page is cut
at blank lines, then lines, then hard, into pieces of at most ``max_chars``; consecutive short
pages are joined (so a chunk may span ``page``..``page_end``) until ``min_chars``; a page of
``min_chars`` or more is never joined to another, so the text printed on it keeps its page.
A canvas gives one chunk per text card, its group/edge labels as context; a canvas of file cards
only gives one chunk naming the files it holds (see ``core/vault/canvas.py``). The embedding input
is a context header (title, and "p. N" / "card ID") + a blank line + the text, as for notes.
A chunk of joined pages records where each page starts in its text (``page_starts``), so a
result can open at the page that holds the match (``match_page``), not at the first one.
"""

from __future__ import annotations

from dataclasses import dataclass

from vaultheat.core.vault.canvas import CanvasDoc
from vaultheat.core.vault.lexical import fold, query_terms, text_terms
from vaultheat.core.vault.pdftext import PdfText

PDF_MAX_CHARS = 1500
PDF_MIN_CHARS = 200


@dataclass(frozen=True)
class DerivedChunk:
    ordinal: int
    kind: str  # "pdf" or "canvas"
    text: str  # extracted text (PDF) or the card's text with its context lines (canvas)
    embed_input: str
    page: int | None = None  # 1-based first page (PDF)
    page_end: int | None = None  # last page, == page for a one-page chunk
    card_id: str | None = None  # the canvas card (JSON Canvas node id)
    # a chunk of joined pages: (char offset in ``text``, page) where each page starts, the
    # first at 0; () for a one-page chunk, a part of a long page or a canvas card
    page_starts: tuple[tuple[int, int], ...] = ()

    @property
    def locator(self) -> str:
        if self.card_id is not None:
            return f"card {self.card_id}"
        if self.page is None:
            return ""
        return (
            f"p. {self.page}" if self.page_end == self.page else f"pp. {self.page}-{self.page_end}"
        )


def _title(path: str) -> str:
    base = path.rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[0] if "." in base else base


def _split(text: str, max_chars: int) -> list[str]:
    """Pieces of at most ``max_chars``: at blank lines, then line ends, then hard cuts."""
    if len(text) <= max_chars:
        return [text]
    for sep in ("\n\n", "\n", " "):
        parts = text.split(sep)
        if len(parts) > 1:
            out: list[str] = []
            cur = ""
            for p in parts:
                cand = f"{cur}{sep}{p}" if cur else p
                if len(cand) <= max_chars:
                    cur = cand
                    continue
                if cur:
                    out.append(cur)
                cur = p
            if cur:
                out.append(cur)
            return [q for piece in out for q in _split(piece, max_chars)]
    return [text[i : i + max_chars] for i in range(0, len(text), max_chars)]


def chunk_pdf(
    doc: PdfText, *, max_chars: int = PDF_MAX_CHARS, min_chars: int = PDF_MIN_CHARS
) -> list[DerivedChunk]:
    title = _title(doc.path)
    # (page, page_end, text, where each page starts in text)
    pieces: list[tuple[int, int, str, tuple[tuple[int, int], ...]]] = []
    for number, page_text in enumerate(doc.pages, start=1):
        text = page_text.strip()
        if not text:
            continue
        prev_short = pieces and len(pieces[-1][2]) < min_chars
        if prev_short and len(text) < min_chars and len(pieces[-1][2]) + len(text) < max_chars:
            first, _, prev, starts = pieces.pop()
            joined = f"{prev}\n\n{text}"
            starts = (starts or ((0, first),)) + ((len(prev) + 2, number),)
            pieces.append((first, number, joined, starts))
            continue
        pieces.extend((number, number, part, ()) for part in _split(text, max_chars))
    out = []
    for i, (page, page_end, text, starts) in enumerate(pieces):
        where = f"p. {page}" if page == page_end else f"pp. {page}-{page_end}"
        embed_input = f"{title} ({where})\n\n{text}"
        out.append(DerivedChunk(i, "pdf", text, embed_input, page, page_end, page_starts=starts))
    return out


def page_texts(text: str, starts: tuple[tuple[int, int], ...]) -> list[tuple[int, str]]:
    """(page, its text) for each page of a chunk of joined pages (``page_starts``)."""
    ends = [offset for offset, _ in starts[1:]] + [len(text)]
    return [(page, text[offset:end]) for (offset, page), end in zip(starts, ends, strict=True)]


def match_page(
    text: str, page: int | None, starts: tuple[tuple[int, int], ...], query: str | None
) -> int | None:
    """The page of a chunk to open for ``query``: the one whose text holds the most of the
    query's terms (as the lexical index splits and matches them, core/vault/lexical.py), the first
    of those on a tie; the first page when no page holds any, with no query (related notes) or
    when the chunk has one page or no recorded page starts (an index from before them)."""
    if page is None or len(starts) < 2 or not query:
        return page
    terms = {fold(t) for t in query_terms(query)}
    best, best_hits = page, 0
    for number, part in page_texts(text, starts):
        hits = len(terms & text_terms(part))
        if hits > best_hits:
            best, best_hits = number, hits
    return best


def chunk_canvas(doc: CanvasDoc) -> list[DerivedChunk]:
    title = _title(doc.path)
    if not doc.cards and doc.file_cards:
        context = dict.fromkeys(c for card in doc.file_cards for c in card.context)
        names = dict.fromkeys(_title(card.text) for card in doc.file_cards)
        text = "\n".join((*context, *names))
        first = doc.file_cards[0].card_id
        return [DerivedChunk(0, "canvas", text, f"{title}\n\n{text}", card_id=first)]
    return [
        DerivedChunk(
            i, "canvas", card.chunk_text, f"{title}\n\n{card.chunk_text}", card_id=card.card_id
        )
        for i, card in enumerate(doc.cards)
    ]
