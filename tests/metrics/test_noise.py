"""The noise band and its verdicts, on synthetic histories: stable, noisy, a real step change,
an improvement, too few runs, missing values."""

from __future__ import annotations

import random

import pytest

from tipc.metrics.noise import MAD_FLOOR, Band, TrendPolicy, TrendVerdict, judge, noise_band

POLICY = TrendPolicy(runs=30, k=3.0, min_runs=5)
STABLE = [10.0] * 10
_rng = random.Random(7)
NOISY = [10.0 + _rng.gauss(0, 0.5) for _ in range(20)]  # σ = 0.5 ms around 10 ms: 5 % noise


@pytest.mark.parametrize(
    ("earlier", "value", "higher_is_better", "verdict"),
    [
        (STABLE, 10.01, False, TrendVerdict.STEADY),  # 0.1 % on a history that never moved
        (STABLE, 10.29, False, TrendVerdict.STEADY),  # inside the floor: 3 × 1 % of the median
        (STABLE, 10.4, False, TrendVerdict.REGRESSION),
        (NOISY, 11.0, False, TrendVerdict.STEADY),  # 2 σ: the noise it always had
        (NOISY, 9.0, False, TrendVerdict.STEADY),
        (NOISY, 13.0, False, TrendVerdict.REGRESSION),  # a real step: +30 %
        (NOISY, 7.0, False, TrendVerdict.IMPROVEMENT),  # faster is noted, never a failure
        ([100.0] * 8, 70.0, True, TrendVerdict.REGRESSION),  # ips fell
        ([100.0] * 8, 130.0, True, TrendVerdict.IMPROVEMENT),
        ([10.0] * 4, 50.0, False, TrendVerdict.LEARNING),  # four earlier runs: not yet judged
        (
            [10.0, None, 10.0, None, 10.0, 10.0],
            50.0,
            False,
            TrendVerdict.LEARNING,
        ),  # runs without the figure do not count
        ([10.0, None, 10.0, None, 10.0, 10.0, 10.0], 50.0, False, TrendVerdict.REGRESSION),
        (STABLE, None, False, TrendVerdict.NO_VALUE),
        ([], 10.0, False, TrendVerdict.LEARNING),
    ],
    ids=[
        "stable-tiny-wobble",
        "stable-within-floor",
        "stable-step",
        "noisy-2-sigma-up",
        "noisy-2-sigma-down",
        "noisy-real-step",
        "noisy-improvement",
        "ips-drop",
        "ips-rise",
        "too-few-runs",
        "missing-values-not-counted",
        "missing-values-enough-left",
        "no-value-this-run",
        "first-run",
    ],
)
def test_verdicts(earlier, value, higher_is_better, verdict):
    assert judge(earlier, value, higher_is_better, POLICY).verdict is verdict


def test_a_step_change_keeps_flagging_until_it_is_the_new_normal():
    """Nights after a real slowdown: flagged while the band is the old level's, steady once most
    of the window is the new level (the median moved), never silently averaged away before."""
    history = [10.0] * 10
    verdicts = []
    for _ in range(12):
        verdicts.append(judge(history, 13.0, False, POLICY).verdict)
        history.append(13.0)
    assert verdicts[:10] == [TrendVerdict.REGRESSION] * 10
    assert verdicts[-1] is TrendVerdict.STEADY


def test_only_the_last_runs_make_the_band():
    old_level, new_level = [50.0] * 20, [10.0] * 5
    judged = judge(old_level + new_level, 10.0, False, TrendPolicy(runs=5, k=3.0, min_runs=5))
    assert judged.verdict is TrendVerdict.STEADY and judged.runs == 5
    assert (
        judge(old_level + new_level, 10.0, False, TrendPolicy(runs=25, min_runs=5)).verdict is TrendVerdict.IMPROVEMENT
    )


@pytest.mark.parametrize(
    ("values", "k", "band"),
    [
        ([10.0, 10.0, 10.0], 3.0, Band(10.0, 10.0 - 3 * MAD_FLOOR * 10, 10.0 + 3 * MAD_FLOOR * 10)),
        ([8.0, 10.0, 12.0], 2.0, Band(10.0, 10.0 - 2 * 1.4826 * 2, 10.0 + 2 * 1.4826 * 2)),
        ([1.0, 2.0, 3.0, 1000.0], 1.0, Band(2.5, 2.5 - 1.4826, 2.5 + 1.4826)),  # one wild night does not widen it
        ([2.0, 10.0, 18.0], 3.0, Band(10.0, 0.0, 10.0 + 3 * 1.4826 * 8)),
        ([-2.0, -10.0, -18.0], 1.0, Band(-10.0, -10.0 - 1.4826 * 8, -10.0 + 1.4826 * 8)),
    ],
    ids=["flat-uses-floor", "spread", "outlier-robust", "never-below-zero", "negative-figures-kept"],
)
def test_noise_band(values, k, band):
    got = noise_band(values, k)
    assert got.median == pytest.approx(band.median)
    assert (got.low, got.high) == (pytest.approx(band.low), pytest.approx(band.high))


@pytest.mark.parametrize(
    ("policy", "problem"),
    [
        (TrendPolicy(), ""),
        (TrendPolicy(min_runs=1), "--trend-min-runs 1: expected 2 or more"),
        (TrendPolicy(runs=3, min_runs=5), "--trend-runs 3: expected at least --trend-min-runs (5)"),
        (TrendPolicy(runs=5), "--trend-runs 5: expected at least --trend-min-runs (10)"),
        (TrendPolicy(k=0), "--noise-k 0: expected a number above 0"),
    ],
    ids=["defaults", "min-runs-1", "runs-below-min", "runs-below-default-min", "k-zero"],
)
def test_policy_problems(policy, problem):
    assert policy.problem() == problem if not problem else policy.problem().startswith(problem)
