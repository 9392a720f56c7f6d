from __future__ import annotations

import pytest

from tipc.config.modes import MODES
from tipc.errors import ConfigError
from tipc.prepare.sizes import DEFAULT_SIZES, Sizes, declared_sizes, resolve_sizes


def test_every_mode_has_default_sizes():
    assert set(DEFAULT_SIZES) == set(MODES)


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("lite_train_lite_infer", Sizes(64, 32, 8)),
        ("lite_train_whole_infer", Sizes(64, 32, 32)),
        ("whole_train_whole_infer", Sizes(4000, 400, 32)),
        ("whole_infer", Sizes(0, 0, 32)),
    ],
    ids=["lite", "lite-train-whole-infer", "whole", "whole-infer-images-only"],
)
def test_defaults(mode, expected):
    assert resolve_sizes(mode, {}, {}) == expected


def test_override_beats_declared_beats_default():
    declared = {"whole_train_whole_infer": {"train": 6000, "eval": 500}}
    sizes = resolve_sizes("whole_train_whole_infer", declared, {"train": 10, "eval": None, "infer": None})
    assert sizes == Sizes(train=10, eval=500, infer=32)


def test_declared_sizes_from_target_yaml(tmp_path):
    target = tmp_path / "target.yaml"
    target.write_text(
        "repo: .\nprepare:\n  whole_train_whole_infer: {train: 6000, eval: 500}\n  whole_infer: {infer: 4}\n",
        encoding="utf-8",
    )
    assert declared_sizes(target) == {
        "whole_train_whole_infer": {"train": 6000, "eval": 500},
        "whole_infer": {"infer": 4},
    }


@pytest.mark.parametrize("text", [None, "repo: .\n"], ids=["no-file", "no-prepare-key"])
def test_nothing_declared(tmp_path, text):
    target = tmp_path / "target.yaml"
    if text is not None:
        target.write_text(text, encoding="utf-8")
    assert declared_sizes(target) == {}


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("prepare: 5\n", 1, "expected a mapping of mode names"),
        ("prepare:\n  lite: {train: 1}\n", 2, "unknown mode 'lite'"),
        ("prepare:\n  whole_infer: 3\n", 2, "expected a mapping like"),
        ("prepare:\n  whole_infer:\n    images: 3\n", 3, "unknown key 'images'"),
        ("prepare:\n  whole_infer:\n    infer: -1\n", 3, "non-negative integer"),
    ],
    ids=["not-a-mapping", "unknown-mode", "mode-not-a-mapping", "unknown-role", "negative"],
)
def test_bad_target_yaml(tmp_path, text, line, message):
    target = tmp_path / "target.yaml"
    target.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        declared_sizes(target)
    assert (info.value.path, info.value.line) == (str(target), line)
    assert message in info.value.message


def test_negative_override_is_refused():
    with pytest.raises(ConfigError, match="--eval-count"):
        resolve_sizes("lite_train_lite_infer", {}, {"eval": -2})
