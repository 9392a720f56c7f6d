"""Property: the linear splitter gives what ``shlex.split`` gives (words or error message) for any text."""

from __future__ import annotations

import shlex
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tipc.plan.shellwords import split_words

# The characters shlex treats specially, drawn often enough to meet each other.
SHELL = " \t\r\n'\"\\"
texts = st.text(alphabet=st.sampled_from(SHELL + "ab=#$") | st.characters(codec="utf-8"), max_size=60)


def outcome(split, text: str) -> list[str] | str:
    try:
        return split(text)
    except ValueError as exc:
        return str(exc)


@settings(max_examples=500, deadline=timedelta(seconds=1), derandomize=True, database=None)
@given(texts)
def test_split_words_is_shlex_split(text):
    assert outcome(split_words, text) == outcome(shlex.split, text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "  ",
        "a  b",
        "''",
        "a'' b",
        "'' ''",
        '"a \\" b"',
        '"\\\\"',
        '"\\a"',
        "\\",
        'a"b\\',
        '"ab\\\\',
        "'a\\'",
        "a\\\nb",
        'x="1 2"y',
        "\t\r\n",
        "\x0bvertical\x0btab",
        "#not a comment",
    ],
    ids=repr,
)
def test_split_words_agrees_on_the_corner_cases(text):
    assert outcome(split_words, text) == outcome(shlex.split, text)
