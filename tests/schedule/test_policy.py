"""Parsing --jobs, --mem-per-chain, --gpus-available, --shard: values and the messages for bad ones."""

from __future__ import annotations

import pytest

from tipc.schedule.policy import AUTO, Shard, parse_gpus, parse_jobs, parse_shard, parse_size


@pytest.mark.parametrize(
    ("text", "jobs"), [("4", 4), ("1", 1), ("auto", AUTO), (" AUTO ", AUTO)], ids=["four", "one", "auto", "auto-case"]
)
def test_jobs(text, jobs):
    assert parse_jobs(text) == jobs


@pytest.mark.parametrize("text", ["0", "-2", "many", ""], ids=["zero", "negative", "word", "empty"])
def test_bad_jobs_say_what_is_expected(text):
    with pytest.raises(ValueError, match="expected a number of chains"):
        parse_jobs(text)


@pytest.mark.parametrize(
    ("text", "mb"),
    [
        ("6G", 6144.0),
        ("6GiB", 6144.0),
        ("800M", 800.0),
        ("512MB", 512.0),
        ("2048", 2048.0),
        ("1.5g", 1536.0),
        ("1T", 1048576.0),
        ("512k", 0.5),
    ],
    ids=["G", "GiB", "M", "MB", "bare-MiB", "fraction", "T", "k"],
)
def test_sizes(text, mb):
    assert parse_size(text) == mb


@pytest.mark.parametrize("text", ["", "6X", "G", "0", "-1G"], ids=["empty", "unit", "no-number", "zero", "negative"])
def test_bad_sizes(text):
    with pytest.raises(ValueError, match="expected a size such as 6G"):
        parse_size(text)


@pytest.mark.parametrize(
    ("text", "ids"),
    [("0,1,2,3", ("0", "1", "2", "3")), (" 3, 1 ", ("3", "1")), ("7", ("7",))],
    ids=["four", "spaces-order-kept", "one"],
)
def test_gpu_lists(text, ids):
    assert parse_gpus(text) == ids


@pytest.mark.parametrize("text", ["0,0", "a,b", "0,,1"], ids=["twice", "names", "empty-id"])
def test_bad_gpu_lists(text):
    with pytest.raises(ValueError, match="distinct GPU ids"):
        parse_gpus(text)


@pytest.mark.parametrize(
    ("text", "shard"), [("1/1", Shard(1, 1)), ("2/8", Shard(2, 8)), ("8/8", Shard(8, 8))], ids=["whole", "2of8", "last"]
)
def test_shards(text, shard):
    assert parse_shard(text) == shard
    assert shard.label == text


@pytest.mark.parametrize(
    "text",
    ["0/8", "9/8", "2", "2/", "a/b", "2-8", "-5/2", "1/1000000000", "1/1001", "²/3", "1/" + "9" * 5000],
    ids=["zero", "past", "no-n", "empty-n", "words", "dash", "negative", "a-billion", "over-1000", "unicode-digit",
         "5000-digits"],
)  # fmt: skip
def test_bad_shards(text):
    with pytest.raises(ValueError, match="expected K/N with 1 <= K <= N"):
        parse_shard(text)
