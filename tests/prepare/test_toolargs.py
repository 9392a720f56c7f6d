from __future__ import annotations

import pytest

from tipc.prepare.toolargs import CONFIG_FLAGS, flag_value, opt_pairs, opt_words, tool_words

TRAIN = ("py", "tools/train.py", "-c", "a.yml", "-o", "A.b=1", "C=[x, y]")
LAUNCH = ("py", "-m", "paddle.distributed.launch", "--gpus=0,1", "-o", "x", "tools/train.py", "-c", "b.yml")


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (TRAIN, ("-c", "a.yml", "-o", "A.b=1", "C=[x, y]")),
        (LAUNCH, ("-c", "b.yml")),
        (("py", "-m", "tool"), ()),
    ],
    ids=["script", "launch-words-are-not-the-tools", "no-script"],
)
def test_tool_words(argv, words):
    assert tool_words(argv) == words


@pytest.mark.parametrize(
    ("words", "names", "value"),
    [
        (("-c", "a.yml"), CONFIG_FLAGS, "a.yml"),
        (("--config=b.yml",), CONFIG_FLAGS, "b.yml"),
        (("-c", "a.yml", "--config", "b.yml"), CONFIG_FLAGS, "b.yml"),
        (("--image_dir=./imgs", "--image_dir=./other"), ("--image_dir",), "./other"),
        (("--image_dir_x=1",), ("--image_dir",), None),
        (("-c",), CONFIG_FLAGS, None),
    ],
    ids=["short", "long-equals", "last-wins", "last-equals-wins", "longer-flag-is-another", "no-value"],
)
def test_flag_value(words, names, value):
    assert flag_value(words, *names) == value


@pytest.mark.parametrize(
    ("words", "taken"),
    [
        (("-c", "a", "-o", "A=1", "B=2"), ("A=1", "B=2")),
        (("-o", "A=1", "-c", "a", "-o", "B=2"), ("B=2",)),
        (("--opt", "A=-1", "-5", "--x", "B=2"), ("A=-1", "-5")),
        (("-c", "a"), ()),
    ],
    ids=["to-the-end", "later-o-replaces", "stops-at-an-option-not-a-negative-number", "none"],
)
def test_opt_words(words, taken):
    assert opt_words(words) == taken


@pytest.mark.parametrize(
    ("words", "pairs"),
    [
        (("-o", "A.b=1", "C=x=y"), {"A.b": "A.b=1", "C": "C=x=y"}),
        (("-o", "A=1", "B=2", "A=3"), {"B": "B=2", "A": "A=3"}),
        (("-o", "novalue", "=x", "D="), {"D": "D="}),
    ],
    ids=["pairs", "later-key-wins-and-moves-last", "words-without-a-key-are-left-out"],
)
def test_opt_pairs(words, pairs):
    assert opt_pairs(words) == pairs
    assert list(opt_pairs(words)) == list(pairs)
