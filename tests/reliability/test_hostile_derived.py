"""Hostile PDFs and canvases: each is skipped with a reason or read, in bounded memory/time."""

import json
import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pdf_fixtures import bomb_stream, build_pdf, text_page, write

from vaultheat.core.vault.canvas import parse_canvas
from vaultheat.core.vault.derived import chunk_canvas
from vaultheat.core.vault.pdftext import extract_pdf


def test_decompression_bomb_hits_the_memory_bound(tmp_path):
    bomb = write(tmp_path / "bomb.pdf", build_pdf([], raw_streams=[bomb_stream(256 << 20)]))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    got = extract_pdf(bomb, "bomb.pdf", memory_mb=300)
    assert "memory bound" in (got.skipped or "") and got.pages == []
    # the inflation happened in the child, not here
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100 * 1024


def test_slow_extraction_times_out(tmp_path):
    pdf = write(tmp_path / "p.pdf", build_pdf([text_page(["x"])]))
    got = extract_pdf(pdf, "p.pdf", timeout_s=0.001)
    assert got.skipped is not None and "took over" in got.skipped


def test_a_good_pdf_after_bad_ones_still_reads(tmp_path):
    for i, junk in enumerate([b"", b"%PDF-", b"%PDF-1.4\n1 0 obj << /Length 99999999 >> stream\n"]):
        assert extract_pdf(write(tmp_path / f"j{i}.pdf", junk), f"j{i}.pdf").skipped
    good = write(tmp_path / "good.pdf", build_pdf([text_page(["still here"])]))
    assert extract_pdf(good, "good.pdf").pages == ["still here"]


def test_canvas_with_100k_nodes_is_skipped_and_under_cap_is_read():
    nodes = [{"id": f"n{i}", "type": "text", "text": f"card {i}"} for i in range(100_000)]
    big = json.dumps({"nodes": nodes}).encode()
    assert "over the" in (parse_canvas("big.canvas", big).skipped or "")
    doc = parse_canvas("big.canvas", big, max_nodes=200_000)
    assert len(chunk_canvas(doc)) == 100_000


def test_canvas_hostile_shapes():
    bad = [
        b"\x00" * 1000,
        b'{"nodes": [{"id": {"x": 1}, "type": "text", "text": "a"}]}',
        b'{"nodes": [{"id": "a", "type": "text", "text": "t", "x": "NaN", "y": [], "width": 0}]}',
        b'{"nodes": [], "edges": [{"label": 3}, {"fromNode": 1, "label": "x"}, 7]}',
        b'{"nodes": "' + b"a" * 100_000 + b'"}',
    ]
    for raw in bad:
        doc = parse_canvas("x.canvas", raw)
        assert doc.skipped is not None or all(c.card_id for c in doc.cards)


def test_hostile_documents_in_a_vault_are_skipped_with_reasons_and_nothing_else_is_lost(tmp_path):
    """Through the indexer: each hostile PDF or canvas is listed with its reason, the notes and
    the good PDF are indexed, and the inflation happens outside the indexing process."""
    from vaultheat.config import Settings, save_settings
    from vaultheat.engine import Engine
    from vaultheat.paths import index_paths
    from vaultheat.providers.fake import FakeEmbedder

    vault = tmp_path / "vault"
    for i in range(5):
        write(vault / f"Note {i}.md", f"# Note {i}\n\nPlain text number {i}.\n".encode())
    write(vault / "bomb.pdf", build_pdf([], raw_streams=[bomb_stream(256 << 20)]))
    write(vault / "long.pdf", build_pdf([text_page(["one"]), text_page(["two"]), text_page(["3"])]))
    write(vault / "junk.pdf", b"%PDF-1.4\n1 0 obj << /Length 99999999 >> stream\n")
    write(vault / "scan.pdf", build_pdf([b"0.5 g 72 72 400 600 re f"]))
    write(vault / "good.pdf", build_pdf([text_page(["a good page about lighthouses"])]))
    nodes = [{"id": f"n{i}", "type": "text", "text": f"card {i}"} for i in range(100_000)]
    write(vault / "huge.canvas", json.dumps({"nodes": nodes}).encode())
    write(vault / "bad.canvas", b'{"nodes": [')
    write(vault / "deep.canvas", b"[" * 100_000 + b"]" * 100_000)
    paths = index_paths(vault)
    paths.root.mkdir()
    settings = Settings().with_overrides(
        {"embeddings.provider": "fake", "index.pdf_memory_mb": 300, "index.pdf_max_pages": 2}
    )
    save_settings(paths.config, settings)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    engine = Engine.open(vault, embedder=FakeEmbedder())
    try:
        report = engine.index()
        skipped = {s["path"]: s["reason"] for s in report.skipped_files}
        assert "memory bound" in skipped["bomb.pdf"]
        assert "over the 2-page cap" in skipped["long.pdf"]
        assert skipped["junk.pdf"].startswith("broken PDF")
        assert skipped["scan.pdf"].startswith("no text layer")
        assert "100000 nodes" in skipped["huge.canvas"]
        assert skipped["bad.canvas"].startswith("not valid JSON Canvas")
        assert skipped["deep.canvas"].startswith("not valid JSON Canvas")
        assert "good.pdf" not in skipped
        assert report.notes_indexed == 6  # five notes and the good PDF
        assert report.notes["added"] == 6
    finally:
        engine.close()
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200 * 1024
