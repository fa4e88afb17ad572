"""detect() and route() (issue #25): py3langid with the script rule as fallback."""

from __future__ import annotations

import pytest

from vaultheat.core.language import Language, detect, route, script_language

SENTENCES = [
    ("en", "The graph view shows how your notes link to each other, and you can filter it by tag."),
    ("de", "Die Graphansicht zeigt, wie deine Notizen miteinander verknüpft sind."),
    ("fr", "La vue graphique montre comment vos notes sont reliées entre elles."),
    ("es", "La vista de grafo muestra cómo se enlazan tus notas entre sí."),
    ("pt", "A visualização em grafo mostra como as suas notas se ligam umas às outras."),
    ("ru", "Граф показывает, как ваши заметки связаны друг с другом."),
    ("ja", "グラフビューでは、ノート同士がどのようにリンクしているかを確認できます。"),
    ("zh", "关系图谱显示你的笔记之间是如何相互链接的，你还可以按标签筛选。"),
]


@pytest.mark.parametrize(("code", "text"), SENTENCES)
def test_detect_real_sentences(code: str, text: str) -> None:
    lang = detect(text)
    assert lang.code == code
    assert 0.0 < lang.confidence <= 1.0


def test_long_sentences_are_decided_by_the_library() -> None:
    assert detect(SENTENCES[1][1]).rule == "langid"


def test_short_text_falls_back_to_the_script_rule() -> None:
    assert detect("同步笔记") == Language("zh", 1.0, "script")
    assert detect("ノート同期").code == "ja"
    assert detect("Заметки").code == "ru"
    short = detect("git push")
    assert (short.code, short.rule) == ("en", "script")


def test_empty_and_letterless_text() -> None:
    assert detect("").rule == "empty"
    assert detect("1234 -- 5678").code == "und"
    assert route("") == "english"


def test_code_spans_do_not_make_a_german_note_english() -> None:
    text = (
        "Um das Plugin zu bauen, führe im Ordner des Projekts den Befehl `npm run build` aus "
        "und kopiere danach die Datei `main.js` in den Ordner deines Tresors.\n"
        "```bash\nnpm install --save-dev typescript esbuild\nnpm run build\n```\n"
    )
    assert detect(text).code == "de"


def test_script_rule_kana_with_han_is_japanese() -> None:
    assert script_language("日本語のノート").code == "ja"
    assert script_language("中文笔记").code == "zh"


@pytest.mark.parametrize(
    ("query", "space"),
    [
        ("How do I embed a note in another note?", "english"),
        ("sync settings", "english"),
        ("Как вставить одну заметку в другую?", "multilingual"),
        ("Wie bette ich eine Notiz in eine andere ein?", "multilingual"),
        ("如何在笔记中嵌入另一个笔记", "multilingual"),
        ("別のノートを埋め込む方法", "multilingual"),
    ],
)
def test_route(query: str, space: str) -> None:
    assert route(query) == space


@pytest.mark.parametrize(
    "query",
    [
        "usar mi propio dominio para mi sitio publicado",
        "organizar notas con etiquetas",
        "importer mes carnets depuis Evernote",
        "borré un párrafo sin querer, ¿puedo recuperarlo?",
    ],
)
def test_a_short_latin_query_in_another_language_is_not_read_as_english(query: str) -> None:
    from vaultheat.core.language import query_language

    assert detect(query).code == "en"  # the script rule's guess, which sent it to MiniLM
    assert query_language(query).code != "en"


@pytest.mark.parametrize(
    "query",
    [
        "luks change passphrase",
        "mdadm grow raid0 add disk",
        "red lentil soup",
        "pyflyby auto import",
        "networkx from pandas edgelist",
        "git worktree checkout",
        "graph view",
    ],
)
def test_a_short_english_keyword_query_stays_english(query: str) -> None:
    from vaultheat.core.language import query_language

    assert query_language(query).code == "en"
