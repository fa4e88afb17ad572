"""bench/sidebar_crowding.py: template lines and the template share, on hand-made notes."""

from __future__ import annotations

from tests.bench.bench_scripts import load_bench

sc = load_bench("sidebar_crowding")

DAILY = "## Tasks\n- [ ] todo\n## Journal\nMood:\n"


def vault() -> dict[str, set[str]]:
    notes = {f"daily/{d}.md": DAILY + f"Walked to the {w}.\n"
             for d, w in zip(range(1, 7), ["park", "lake", "shop", "park", "hill", "sea"],
                             strict=True)}  # fmt: skip
    notes["espresso.md"] = "# Espresso\nGrind fine.\n## Journal\n"
    notes["v60.md"] = "# V60\nGrind medium.\n"
    return {p: sc.note_lines(t) for p, t in notes.items()}


def test_note_lines_strip_lower_and_drop_short_lines() -> None:
    assert sc.note_lines("  Mood: \n-\n\n## Tasks\n- [ ] \n") == {"mood:", "## tasks"}


def test_note_lines_leave_out_the_frontmatter_and_rules() -> None:
    text = "---\ndesc: ''\ntags: [daily]\n---\n# Day\n---\nWalked.\n"
    assert sc.note_lines(text) == {"# day", "walked."}
    assert sc.note_lines("---\nno end\n") == {"no end"}  # an unclosed block is body


def test_note_lines_leave_out_code_fences() -> None:
    # two notes with a bash block each share Markdown syntax, not a template
    text = "Intro line\n```bash\nls -la\n```\n~~~ python\n~~~\n``` not a fence: words after\n"
    assert sc.note_lines(text) == {"intro line", "ls -la", "``` not a fence: words after"}


def test_template_lines_are_lines_in_enough_notes() -> None:
    tmpl = sc.template_lines(vault())
    # the daily template's lines are in 6 notes (>= TEMPLATE_MIN = 5); "## journal" in 7
    assert tmpl["daily/1.md"] == {"## tasks", "- [ ] todo", "## journal", "mood:"}
    assert tmpl["espresso.md"] == {"## journal"}  # one template line: not made from it
    assert tmpl["v60.md"] == set()
    assert "walked to the park." not in tmpl["daily/1.md"]  # in 2 notes only


def test_template_share_counts_same_template_slots_of_template_notes() -> None:
    tmpl = sc.template_lines(vault())
    rankings = {
        "daily/1.md": ["daily/2.md", "espresso.md", "daily/3.md", "v60.md"],  # 2 of 4 mates
        "daily/2.md": ["v60.md", "espresso.md"],  # 0 of 2
        "espresso.md": ["daily/1.md", "daily/2.md"],  # not a template note: not counted
    }
    got = sc.template_share(rankings, tmpl)
    assert got["template_notes"] == 2
    assert got["template_share"] == round(2 / 6, 3)
    assert got["template_mates_per_note"] == 1.0


def test_no_template_notes_gives_zero() -> None:
    got = sc.template_share({"v60.md": ["espresso.md"]}, sc.template_lines(vault()))
    assert got == {"template_notes": 0, "template_share": 0.0, "template_mates_per_note": 0.0}
