"""Stage time limits: defaults per mode and kind, ``--timeout KIND=SECONDS`` overrides."""

from __future__ import annotations

import pytest

from tipc.config.modes import MODES
from tipc.run.limits import DEFAULT_TIMEOUTS, HOUR, KINDS, parse_timeout, resolve_limits


def test_every_mode_has_a_limit_for_every_kind():
    assert set(DEFAULT_TIMEOUTS) == set(MODES)
    assert all(set(limits) == set(KINDS) for limits in DEFAULT_TIMEOUTS.values())


@pytest.mark.parametrize(
    ("mode", "train", "infer"),
    [
        ("lite_train_lite_infer", 2 * HOUR, HOUR),
        ("lite_train_whole_infer", 2 * HOUR, 2 * HOUR),  # lite training (the fallback of B10), whole inference
        ("whole_train_whole_infer", 72 * HOUR, 2 * HOUR),
        ("whole_infer", 2 * HOUR, 2 * HOUR),
    ],
    ids=["lite", "lite-train-whole-infer", "whole-train", "whole-infer"],
)
def test_defaults_per_mode(mode, train, infer):
    limits = resolve_limits(mode)
    assert (limits.timeout("train"), limits.timeout("infer"), limits.hang) == (train, infer, None)


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        (("infer=30",), {"train": 2 * HOUR, "eval": HOUR, "export": HOUR, "infer": 30, "convert": HOUR}),
        (("all=5",), {"train": 5, "eval": 5, "export": 5, "infer": 5, "convert": 5}),
        (
            ("train=60", "all=5"),
            {"train": 60, "eval": 5, "export": 5, "infer": 5, "convert": 5},
        ),  # a kind beats all, in any order
        (
            ("export=1", "export=2.5"),
            {"train": 2 * HOUR, "eval": HOUR, "export": 2.5, "infer": HOUR, "convert": HOUR},
        ),  # last wins
        ((" eval =7",), {"train": 2 * HOUR, "eval": 7, "export": HOUR, "infer": HOUR, "convert": HOUR}),
    ],
    ids=["one-kind", "all", "kind-beats-all", "last-wins", "spaces"],
)
def test_overrides(overrides, expected):
    limits = resolve_limits("lite_train_lite_infer", overrides, hang=9)
    assert {kind: limits.timeout(kind) for kind in KINDS} == expected and limits.hang == 9


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("train", "expected KIND=SECONDS with KIND one of train, eval, export, infer, convert, all; got 'train'"),
        (
            "training=3",
            "expected KIND=SECONDS with KIND one of train, eval, export, infer, convert, all; got 'training=3'",
        ),
        ("train=soon", "expected a number of seconds, got 'soon'"),
        ("train=0", "expected a positive number of seconds, got '0'"),
        ("all=-1", "expected a positive number of seconds, got '-1'"),
        ("infer=nan", "expected a positive number of seconds, got 'nan'"),
    ],
    ids=["no-seconds", "unknown-kind", "not-a-number", "zero", "negative", "nan"],
)
def test_bad_timeouts(text, message):
    with pytest.raises(ValueError) as caught:
        parse_timeout(text)
    assert str(caught.value) == message
