"""``--benchmark-params`` words: card counts, node counts and batch sizes bounded before any number
is made (``N1C99999999999999999`` was a plan of 10^17 card ids)."""

from __future__ import annotations

import time

import pytest

from tipc.config.benchmark import parse_selector, parse_selectors
from tipc.errors import SettingsError


@pytest.mark.parametrize(
    ("word", "message"),
    [
        ("dynamic_bs8_fp32_DP_N1C99999999999999999", "expected N<nodes>C<cards>"),
        ("dynamic_bs8_fp32_DP_N1C65", "at most 1024 nodes of at most 64 cards each"),
        ("dynamic_bs8_fp32_DP_N2000C2000", "at most 1024 nodes"),
        ("dynamic_bs8_fp32_DP_N4C2", "at least one card per node"),
        ("dynamic_bs" + "9" * 5000 + "_fp32_DP_N1C1", "expected bs<N> with 0 < N < 1000000"),
        ("dynamic_bs²_fp32_DP_N1C1", "expected bs<N>"),
        ("dynamic_bs8_fp32_DP_N1C" + "1" * 5000, "expected N<nodes>C<cards>"),
    ],
    ids=[
        "cards-huge",
        "cards-per-node",
        "nodes",
        "fewer-cards-than-nodes",
        "batch-5000-digits",
        "batch-unicode",
        "long",
    ],
)
def test_impossible_counts_are_refused_quickly_with_the_form(word, message):
    started = time.monotonic()
    with pytest.raises(SettingsError) as caught:
        parse_selectors(word)
    assert message in str(caught.value) and len(str(caught.value)) < 400
    assert time.monotonic() - started < 1


@pytest.mark.parametrize("word", ["dynamic_bs8_fp32_DP_N1C1", "dynamic_bs64_fp16_DP_N1C8", "dynamic_bs8_fp32_DP_N4C32"])
def test_real_selectors_still_read(word):
    assert parse_selector(word).text == word
