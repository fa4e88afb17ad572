import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pdf_fixtures import IMAGE_ONLY, build_pdf, text_page, two_column_page, write

from vaultheat.core.vault.pdftext import BACKENDS, extract_pdf


@pytest.mark.parametrize("backend", BACKENDS)
def test_pages_in_order_with_two_columns(tmp_path, backend):
    pdf = write(
        tmp_path / "p.pdf",
        build_pdf(
            [text_page(["first page words"]), two_column_page(["left side"], ["right side"])]
        ),
    )
    got = extract_pdf(pdf, "p.pdf", backend=backend)
    assert got.skipped is None
    assert got.pages[0] == "first page words"
    assert got.pages[1].index("left side") < got.pages[1].index("right side")


def test_no_text_layer_broken_caps(tmp_path):
    scan = write(tmp_path / "scan.pdf", build_pdf([IMAGE_ONLY]))
    assert "no text layer" in (extract_pdf(scan, "scan.pdf").skipped or "")
    broken = write(tmp_path / "b.pdf", b"%PDF-1.7\n garbage \x00\xff")
    assert (extract_pdf(broken, "b.pdf").skipped or "").startswith("broken PDF")
    half = build_pdf([text_page(["x"])])
    cut = write(tmp_path / "cut.pdf", half[: len(half) // 3])
    assert extract_pdf(cut, "cut.pdf").skipped is not None
    many = write(tmp_path / "m.pdf", build_pdf([text_page([str(i)]) for i in range(5)]))
    assert "page cap" in (extract_pdf(many, "m.pdf", max_pages=3).skipped or "")
    assert "byte cap" in (extract_pdf(many, "m.pdf", max_bytes=100).skipped or "")
    assert extract_pdf(tmp_path / "gone.pdf", "gone.pdf").skipped


def test_encrypted_is_skipped(tmp_path):
    pypdf = pytest.importorskip("pypdf")
    w = pypdf.PdfWriter(clone_from=write(tmp_path / "a.pdf", build_pdf([text_page(["secret"])])))
    w.encrypt(user_password="pw", owner_password="owner")
    with open(tmp_path / "enc.pdf", "wb") as f:
        w.write(f)
    for backend in BACKENDS:
        got = extract_pdf(tmp_path / "enc.pdf", "enc.pdf", backend=backend)
        assert got.skipped == "encrypted PDF", (backend, got)
