from vaultheat.core.vault.canvas import parse_canvas
from vaultheat.core.vault.derived import chunk_canvas, chunk_pdf, match_page
from vaultheat.core.vault.pdftext import PdfText


def test_pdf_chunks_carry_page_ranges():
    long_page = "\n\n".join(f"paragraph {i} " + "word " * 60 for i in range(10))
    doc = PdfText("Docs/Manual.pdf", pages=["short intro", "", "tiny two", long_page, "last " * 80])
    chunks = chunk_pdf(doc, max_chars=700, min_chars=200)
    assert (chunks[0].page, chunks[0].page_end) == (1, 3)  # short pages joined, empty page 2 kept
    assert chunks[0].text == "short intro\n\ntiny two"
    assert chunks[0].locator == "pp. 1-3"
    on4 = [c for c in chunks if c.page == 4]
    assert len(on4) > 1 and all(c.page_end == 4 and len(c.text) <= 700 for c in on4)
    assert "".join(c.text for c in on4).replace("\n", "") == long_page.strip().replace("\n", "")
    assert chunks[-1].page == 5 and chunks[-1].locator == "p. 5"
    assert chunks[-1].embed_input.startswith("Manual (p. 5)\n\n")
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    assert chunks[0].page_starts == ((0, 1), (13, 3))  # page 2 has no text
    assert chunks[0].text[13:] == "tiny two"
    assert all(c.page_starts == () for c in chunks[1:])  # one page each


def test_a_chunk_of_joined_pages_opens_at_the_page_holding_the_match():
    doc = PdfText("Docs/Short.pdf", pages=["Pruning roses in winter.", "Lifting dahlia tubers.",
                                           "Café terraces and dahlia beds."])  # fmt: skip
    (chunk,) = chunk_pdf(doc)
    assert (chunk.page, chunk.page_end, len(chunk.page_starts)) == (1, 3, 3)

    def at(query: str | None) -> int | None:
        return match_page(chunk.text, chunk.page, chunk.page_starts, query)

    assert at("lifting dahlia tubers") == 2  # three terms on page 2, one on page 3
    assert at("pruning roses") == 1
    assert at("dahlia") == 2  # a tie: the first page that holds it
    assert at("DAHLIA beds") == 3  # case, as the index matches words
    assert at("cafe terraces") == 3  # and diacritics (unicode61 remove_diacritics)
    assert at("tuber") == 1  # a word, not a part of one: no page holds it, the first page
    assert at(None) == 1 and at("") == 1  # related notes: no query
    assert match_page(chunk.text, chunk.page, (), "dahlia tubers") == 1  # no page starts stored
    assert match_page("text", None, (), "text") is None  # no page: a note's chunk


def test_canvas_chunks_carry_card_ids():
    raw = (
        b'{"nodes":[{"id":"g","type":"group","label":"Plan","x":0,"y":0,"width":99,"height":99},'
        b'{"id":"a1","type":"text","text":"Buy milk","x":1,"y":1,"width":5,"height":5}]}'
    )
    chunks = chunk_canvas(parse_canvas("Boards/Home.canvas", raw))
    assert [(c.card_id, c.text, c.locator) for c in chunks] == [("a1", "Plan\nBuy milk", "card a1")]
    assert chunks[0].embed_input == "Home\n\nPlan\nBuy milk"
    assert chunks[0].page is None


def test_a_canvas_of_file_cards_only_gets_one_chunk_naming_what_it_holds():
    raw = (
        b'{"nodes":[{"id":"g","type":"group","label":"Baking","x":0,"y":0,"width":99,"height":99},'
        b'{"id":"f1","type":"file","file":"Notes/Bread.md","x":1,"y":1,"width":5,"height":5},'
        b'{"id":"f2","type":"file","file":"Docs/Oven manual.pdf","x":200,"y":1,"width":5,'
        b'"height":5}]}'
    )
    doc = parse_canvas("Boards/Weekend.canvas", raw)
    assert doc.links == ["Notes/Bread.md", "Docs/Oven manual.pdf"]
    chunks = chunk_canvas(doc)
    assert [(c.card_id, c.text) for c in chunks] == [("f1", "Baking\nBread\nOven manual")]
    assert chunks[0].embed_input == "Weekend\n\nBaking\nBread\nOven manual"


def test_a_canvas_with_text_cards_gets_no_chunk_for_its_file_cards():
    raw = (
        b'{"nodes":[{"id":"a1","type":"text","text":"Buy milk","x":1,"y":1,"width":5,"height":5},'
        b'{"id":"f1","type":"file","file":"Notes/Bread.md","x":9,"y":9,"width":5,"height":5}]}'
    )
    assert [c.card_id for c in chunk_canvas(parse_canvas("B.canvas", raw))] == ["a1"]
