"""Query expansion parses whatever a chat model says and never raises."""

from __future__ import annotations

import json
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultheat.core.query.expansion import (
    Expansion,
    build_prompt,
    expand_query,
    select_variants,
)
from vaultheat.errors import ProviderError
from vaultheat.providers.fake import FakeGenerator

QUERY = "How do I rotate my GPG keys?"
VALID = json.dumps(
    {
        "queries": ["renew gpg subkeys", "gpg key expiry", "pgp key rollover"],
        "hyde": "To rotate GPG keys, create a new subkey and revoke the old one.",
    }
)


@pytest.mark.parametrize(
    "reply",
    [
        VALID,
        f"```json\n{VALID}\n```",
        f"```\n{VALID}\n```",
        f"Sure! Here is the JSON you asked for:\n{VALID}\nHope this helps.",
        f"<think>The user wants {{variants}}; maybe {{x}}.</think>\n{VALID}",
    ],
    ids=["plain", "fenced-json", "fenced-bare", "chatter", "think-block-with-braces"],
)
def test_parses_valid_replies(reply: str) -> None:
    gen = FakeGenerator(reply)
    out = expand_query(gen, QUERY)
    assert out.variants == ["renew gpg subkeys", "gpg key expiry", "pgp key rollover"]
    assert out.hyde == "To rotate GPG keys, create a new subkey and revoke the old one."
    assert len(gen.prompts) == 1


@pytest.mark.parametrize(
    "reply",
    [
        "I cannot help with that.",
        "",
        "{not json at all}",
        '{"queries": ["a", "b"',
        json.dumps(["a", "b"]),
        json.dumps({"queries": "just one string"}),
        json.dumps({"queries": [1, 2, 3]}),
        json.dumps({"queries": ["ok"], "hyde": 42}),
        json.dumps({"queries": {"a": 1}}),
    ],
    ids=[
        "prose",
        "empty",
        "broken-object",
        "truncated",
        "top-level-list",
        "queries-string",
        "queries-ints",
        "hyde-number",
        "queries-dict",
    ],
)
def test_bad_replies_give_empty_expansion_and_a_warning(
    reply: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    assert expand_query(FakeGenerator(reply), QUERY) == Expansion([], None)
    assert len(caplog.records) == 1 and "expansion: skipped" in caplog.records[0].getMessage()


@pytest.mark.parametrize(
    "error",
    [ProviderError("server down"), RuntimeError("boom"), TimeoutError(), KeyError("x")],
    ids=["provider-error", "runtime-error", "timeout", "key-error"],
)
def test_raising_generator_never_raises(error: Exception, caplog: pytest.LogCaptureFixture) -> None:
    assert expand_query(FakeGenerator(error), QUERY) == Expansion([], None)
    assert "expansion: skipped" in caplog.text


def test_non_string_reply() -> None:
    class NumberGenerator:
        def generate(self, prompt: str, *, max_tokens: int = 1024) -> str:
            return 42  # type: ignore[return-value]

    assert expand_query(NumberGenerator(), QUERY) == Expansion([], None)


def test_duplicates_empties_and_clamp() -> None:
    reply = json.dumps(
        {
            "queries": [
                "  how do i ROTATE my gpg   keys? ",
                "",
                "   ",
                "gpg key expiry",
                "GPG Key Expiry",
                "renew subkeys",
                "revoke old key",
                "fourth one",
            ],
            "hyde": "   ",
        }
    )
    out = expand_query(FakeGenerator(reply), QUERY, variants=3)
    assert out.variants == ["gpg key expiry", "renew subkeys", "revoke old key"]
    assert out.hyde is None  # blank passage


def test_missing_queries_key_keeps_hyde() -> None:
    out = expand_query(FakeGenerator('{"hyde": "A passage."}'), QUERY)
    assert out == Expansion([], "A passage.")


def test_hyde_off() -> None:
    gen = FakeGenerator(VALID)
    out = expand_query(gen, QUERY, variants=2, hyde=False)
    assert out.hyde is None and len(out.variants) == 2
    assert "hyde" not in gen.prompts[0]


def test_nothing_requested_or_no_generator_makes_no_call() -> None:
    gen = FakeGenerator(VALID)
    assert expand_query(None, QUERY) == Expansion()
    assert expand_query(gen, QUERY, variants=0, hyde=False) == Expansion()
    assert expand_query(gen, "   ") == Expansion()
    assert gen.prompts == []


def test_prompt_and_max_tokens() -> None:
    gen = FakeGenerator(VALID)
    expand_query(gen, 'say "hi"\nnow', variants=5, max_tokens=4096)
    prompt = gen.prompts[0]
    assert json.dumps('say "hi"\nnow') in prompt
    assert '"queries"' in prompt and '"hyde"' in prompt and "up to 5" in prompt
    assert gen.max_tokens == [4096]
    assert build_prompt("q", variants=3, hyde=True) == build_prompt("q", variants=3, hyde=True)


def test_no_variant_is_taken_when_none_is_asked_for() -> None:
    # found by the property test below (reply {"queries":["00"]}, variants 0): the limit was
    # checked only after a variant had been taken
    assert select_variants(["00", "other"], "0", 0) == []
    out = expand_query(FakeGenerator('{"queries":["00"]}'), "0", variants=0, hyde=True)
    assert out.variants == []


@settings(max_examples=200)
@given(
    reply=st.one_of(
        st.text(max_size=300),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=20),
            lambda children: (
                st.lists(children, max_size=5)
                | st.dictionaries(st.sampled_from(["queries", "hyde", "x"]), children, max_size=3)
            ),
            max_leaves=10,
        ).map(json.dumps),
    ),
    query=st.text(min_size=1, max_size=40),
    variants=st.integers(0, 5),
)
def test_never_raises_and_invariants_hold(reply: str, query: str, variants: int) -> None:
    out = expand_query(FakeGenerator(reply), query, variants=variants)
    assert len(out.variants) <= variants
    keys = [v.casefold() for v in out.variants]
    assert len(set(keys)) == len(keys)
    assert " ".join(query.split()).casefold() not in keys
    assert all(v.strip() == v and v for v in out.variants)
    assert out.hyde is None or (isinstance(out.hyde, str) and out.hyde.strip())
