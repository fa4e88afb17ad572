from vaultheat.core.canvas import parse_canvas
from vaultheat.core.derived import chunk_canvas, chunk_pdf
from vaultheat.core.pdftext import PdfText


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


def test_canvas_chunks_carry_card_ids():
    raw = (
        b'{"nodes":[{"id":"g","type":"group","label":"Plan","x":0,"y":0,"width":99,"height":99},'
        b'{"id":"a1","type":"text","text":"Buy milk","x":1,"y":1,"width":5,"height":5}]}'
    )
    chunks = chunk_canvas(parse_canvas("Boards/Home.canvas", raw))
    assert [(c.card_id, c.text, c.locator) for c in chunks] == [("a1", "Plan\nBuy milk", "card a1")]
    assert chunks[0].embed_input == "Home\n\nPlan\nBuy milk"
    assert chunks[0].page is None
