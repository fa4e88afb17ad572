import json

from vaultheat.config import VaultSettings
from vaultheat.core.vault.discovery import discover, discover_documents


def test_pdfs_and_canvases_follow_kinds_and_exclusions(tmp_path):
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian" / "app.json").write_text(
        json.dumps({"userIgnoreFilters": ["Private/"]})
    )
    for rel, data in {
        "a.md": b"# A",
        "Papers/p.pdf": b"%PDF-1.7",
        "Private/secret.pdf": b"%PDF-1.7",
        "Boards/b.canvas": b"{}",
        "Archive/old.canvas": b"{}",
        "img.png": b"\x89PNG",
        "Papers/big.pdf": b"%PDF" + b" " * 5000,
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    settings = VaultSettings(exclude=("Archive",))
    disc = discover(tmp_path, settings)
    entries, skipped = discover_documents(tmp_path, settings, disc, max_bytes={"pdf": 1000})
    assert [e.path for e in entries] == ["Boards/b.canvas", "Papers/p.pdf"]
    reasons = {s.path: s.reason for s in skipped}
    assert "userIgnoreFilters" in reasons["Private/secret.pdf"]
    assert "Archive" in reasons["Archive/old.canvas"]
    assert reasons["Papers/big.pdf"] == "larger than 1000 bytes"
    only_md, _ = discover_documents(tmp_path, settings, disc, kinds=("markdown",))
    assert only_md == []
    pdf_only, _ = discover_documents(
        tmp_path, settings, disc, kinds=("pdf",), max_bytes={"pdf": 1000}
    )
    assert [e.path for e in pdf_only] == ["Papers/p.pdf"]
