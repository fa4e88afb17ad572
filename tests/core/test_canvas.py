import json

from vaultheat.core.vault.canvas import parse_canvas


def _board(**kw):
    return json.dumps(kw).encode()


def test_text_cards_files_groups_edges():
    raw = _board(
        nodes=[
            {
                "id": "g1",
                "type": "group",
                "label": "Roadmap",
                "x": 0,
                "y": 0,
                "width": 500,
                "height": 500,
            },
            {
                "id": "c1",
                "type": "text",
                "text": "Ship the heat map [[Plans|p]]",
                "x": 10,
                "y": 10,
                "width": 100,
                "height": 50,
            },
            {
                "id": "c2",
                "type": "text",
                "text": "Outside card",
                "x": 900,
                "y": 900,
                "width": 10,
                "height": 10,
            },
            {
                "id": "f1",
                "type": "file",
                "file": "Notes/Alpha.md",
                "x": 20,
                "y": 20,
                "width": 10,
                "height": 10,
            },
            {"id": "l1", "type": "link", "url": "https://example.invalid"},
        ],
        edges=[{"id": "e1", "fromNode": "c2", "toNode": "f1", "label": "depends on"}],
    )
    doc = parse_canvas("Board.canvas", raw)
    assert doc.skipped is None
    by_id = {c.card_id: c for c in doc.cards}
    assert set(by_id) == {"c1", "c2"}
    assert by_id["c1"].context == ("Roadmap",)
    assert by_id["c2"].context == ("depends on",)
    assert by_id["c1"].chunk_text == "Roadmap\nShip the heat map [[Plans|p]]"
    assert doc.links == ["Notes/Alpha.md", "Plans"]


def test_bad_json_is_skipped_with_reason():
    for raw in (b"{not json", b"[1,2]", b'{"nodes": 3}', b"\xff\xfe"):
        doc = parse_canvas("x.canvas", raw)
        assert doc.skipped and doc.cards == []


def test_caps():
    nodes = [{"id": str(i), "type": "text", "text": "t"} for i in range(100_000)]
    doc = parse_canvas("big.canvas", _board(nodes=nodes))
    assert doc.skipped is not None and "100000 nodes" in doc.skipped
    assert parse_canvas("b.canvas", b"{}" + b" " * 100, max_bytes=50).skipped


def test_deep_nesting_and_junk_nodes():
    deep = b'{"nodes": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert parse_canvas("deep.canvas", deep).skipped
    doc = parse_canvas(
        "j.canvas", _board(nodes=[1, {"type": "text"}, {"id": "a", "type": "text", "text": 5}])
    )
    assert doc.skipped is None and doc.cards == [] and doc.warnings
