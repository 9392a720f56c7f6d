"""A figure's series judged for a shift: a real step dated to its first night, one or two slow
nights left alone, a change below the minimum effect not judged, too little history counted in
nights, values that are not numbers never judged."""

from __future__ import annotations

import math
import random

import pytest

from tipc.history.changes import (
    CELL_P,
    MIN_AFTER,
    REPORTED,
    after_p,
    figure_kind,
    judge_change,
    min_effect_of,
    z_needed,
)
from tipc.metrics.noise import MinEffect, TrendPolicy, TrendVerdict, parse_min_effect

POLICY = TrendPolicy()  # 30 runs a window, at least 10 before a shift
_rng = random.Random(37)
QUIET = [100.0 * (1 + _rng.gauss(0, 0.03)) for _ in range(30)]  # σ = 3 %: a quiet machine's timing
FLAT = [100.0] * 12


TIME_EFFECT = MinEffect().time


def judged(values, higher_is_better=False, min_effect=TIME_EFFECT, policy=POLICY):
    return judge_change(values[:-1], values[-1], higher_is_better, min_effect, policy)


@pytest.mark.parametrize(
    ("values", "higher_is_better", "verdict", "began"),
    [
        ([*QUIET, 120.0, 121.0, 119.0], False, TrendVerdict.REGRESSION, 30),  # 20 % slower for three nights
        ([*QUIET, 99.0, 120.0, 121.0, 119.0], False, TrendVerdict.REGRESSION, 31),  # dated to its first night
        ([*QUIET, 120.0, 121.0], False, TrendVerdict.STEADY, None),  # two nights may be a busy machine's
        ([*QUIET, 160.0, 101.0, 155.0], False, TrendVerdict.STEADY, None),  # two spikes are no shift
        ([*QUIET, 130.0, 130.0, 100.0], False, TrendVerdict.STEADY, None),  # nor two busy nights
        ([*QUIET, 120.0, 160.0, 121.0, 119.0], False, TrendVerdict.REGRESSION, 30),  # a spike inside: left out
        ([*QUIET, 150.0, 120.0, 121.0, 119.0], False, TrendVerdict.REGRESSION, 31),  # a spike never begins one
        (
            [*QUIET, 110.0, 111.0, 109.0],
            False,
            TrendVerdict.REGRESSION,
            30,
        ),  # 10 % for three nights, against thirty quiet ones
        ([*QUIET, 80.0, 79.0, 81.0], False, TrendVerdict.IMPROVEMENT, 30),  # faster: noted, never a failure
        ([*QUIET, 80.0, 79.0, 81.0], True, TrendVerdict.REGRESSION, 30),  # ips that fell
        ([*QUIET, 104.0, 104.5, 104.2], False, TrendVerdict.STEADY, None),  # within the noise
        ([*FLAT, 105.0, 105.0, 105.0], False, TrendVerdict.STEADY, None),  # clear, below the minimum effect (6 %)
        ([*FLAT, 108.0, 108.0, 108.0], False, TrendVerdict.REGRESSION, 12),  # clear and above it
        ([*FLAT[:9], 120.0, 120.0, 120.0], False, TrendVerdict.LEARNING, None),  # eleven earlier: one more night
        ([*QUIET, *[120.0] * REPORTED, 120.0], False, TrendVerdict.STEADY, None),  # an old shift: the new normal
    ],
    ids=[
        "step-three-nights",
        "dated-to-its-first-night",
        "two-nights-wait",
        "two-spikes",
        "two-busy-nights",
        "spike-inside",
        "spike-before",
        "ten-percent",
        "faster",
        "ips-fell",
        "noise",
        "below-min-effect",
        "above-min-effect",
        "learning",
        "new-normal",
    ],
)
def test_verdicts_and_the_night_a_shift_began(values, higher_is_better, verdict, began):
    change = judged(values, higher_is_better)
    assert change.verdict is verdict
    assert (change.shift.began if change.shift else None) == began


@pytest.mark.parametrize(
    ("earlier", "value", "verdict", "needs"),
    [
        ([], 100.0, TrendVerdict.LEARNING, POLICY.min_runs + MIN_AFTER - 1),
        ([100.0] * 5, 100.0, TrendVerdict.LEARNING, 7),
        ([100.0, None, 100.0, math.nan, math.inf] * 4, 100.0, TrendVerdict.LEARNING, 4),  # only numbers count
        ([100.0] * 12, 100.0, TrendVerdict.STEADY, 0),
        ([100.0] * 12, None, TrendVerdict.NO_VALUE, 0),
        ([100.0] * 12, math.nan, TrendVerdict.NO_VALUE, 0),  # never judged
        ([100.0] * 12, -math.inf, TrendVerdict.NO_VALUE, 0),
    ],
    ids=["first-run", "five-runs", "not-numbers-skipped", "enough", "no-value", "nan", "minus-infinity"],
)
def test_too_little_history_says_how_many_more_nights(earlier, value, verdict, needs):
    change = judge_change(earlier, value, False, 0.05, POLICY)
    assert (change.verdict, change.needs) == (verdict, needs)


def test_infinite_values_in_the_history_are_never_a_shift():
    values = [*QUIET, math.inf, math.inf, 100.0]
    assert judged(values).verdict is TrendVerdict.STEADY


def test_a_step_keeps_its_first_night_until_it_is_the_new_normal():
    series, verdicts = list(QUIET), []
    for _ in range(REPORTED + 3):
        series.append(125.0)
        change = judged(series)
        verdicts.append((change.verdict, change.shift.began if change.shift else None))
    assert verdicts[: MIN_AFTER - 1] == [(TrendVerdict.STEADY, None)] * (MIN_AFTER - 1)
    assert set(verdicts[MIN_AFTER - 1 : REPORTED]) == {(TrendVerdict.REGRESSION, 30)}
    assert verdicts[-1] == (TrendVerdict.STEADY, None)


def test_the_noise_test_spends_one_false_alarm_a_year_per_thousand_figures():
    assert pytest.approx(1 / 365_000) == CELL_P
    # a night's splits share it: half for three nights after, a sixth for four, ...
    assert sum(after_p(n) for n in range(MIN_AFTER, 10_000)) == pytest.approx(CELL_P, rel=1e-3)
    assert z_needed(31, 3) == pytest.approx(5.72, abs=0.01)  # three nights after thirty: t, 31 degrees
    assert z_needed(11, 3) == pytest.approx(8.76, abs=0.01)  # after ten, σ is a rougher guess
    assert z_needed(100_000, 3) == pytest.approx(4.69, abs=0.01)  # σ known: the normal quantile
    assert z_needed(31, 4) > z_needed(31, 3)  # a longer split spends less of the budget


@pytest.mark.parametrize(
    ("unit", "kind", "effect"),
    [("ms", "time", 0.06), ("samples/s", "time", 0.06), ("MB", "memory", 0.02), ("%", "accuracy", 0.01)],
)
def test_the_minimum_effect_of_each_kind_of_figure(unit, kind, effect):
    assert figure_kind(unit) == kind and min_effect_of(unit, MinEffect()) == effect


@pytest.mark.parametrize(
    ("texts", "effects"),
    [
        ([], MinEffect()),
        (["time=7%"], MinEffect(time=0.07)),
        (["memory=3", "accuracy=0.5%"], MinEffect(memory=0.03, accuracy=0.005)),
        (["time=0"], MinEffect(time=0.0)),
    ],
)
def test_min_effect_settings(texts, effects):
    assert parse_min_effect(texts) == effects


@pytest.mark.parametrize(
    ("texts", "problem"),
    [
        (["speed=5%"], "expected KIND=PERCENT with KIND one of time, memory, accuracy; got 'speed=5%'"),
        (["time"], "expected KIND=PERCENT"),
        (["time=fast"], "expected a percentage from 0 to 100, e.g. time=5%; got 'time=fast'"),
        (["time=120%"], "expected a percentage from 0 to 100"),
        (["time=nan"], "expected a percentage from 0 to 100"),
    ],
)
def test_bad_min_effect_settings_say_what_to_type(texts, problem):
    with pytest.raises(ValueError, match="^" + problem.replace("(", r"\(").replace(")", r"\)")):
        parse_min_effect(texts)
