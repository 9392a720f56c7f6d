"""Did a figure's series shift, since which night, and is that a regression? Pure arithmetic.

A figure's values, oldest first with this night's last, are split at every night a shift could
have begun: the values from it on (*after*, this night's among them, at least ``MIN_AFTER``)
against the up to ``policy.runs`` values before it (*before*, at least ``policy.min_runs``). A
split is a shift when all three hold:

1. **clear against the noise**: every after value is beyond the before values' median by
   ``z_needed(after)`` σ or more, σ being the before values' scaled MAD (at least 1 % of the
   median: ``tipc.metrics.noise``). ``z_needed`` makes the chance that noise puts them all there
   ``CELL_P`` (``Φ⁻¹(1 − CELL_P^(1/n))``: 2.2 σ for three nights), and asking it of *every* night
   since, not of their mean, keeps one or two slow nights (a busy machine) from passing for a shift;
2. **clear in rank**: the one-sided Mann–Whitney U test of after against before gives
   p ≤ ``RANK_P`` (as asv judges; alone it cannot be sure from three nights, with the first
   test it guards the estimate of σ);
3. **large enough to matter**: the after value nearest the before level is at least the minimum
   effect of the figure's kind (``MinEffect``: time and speed, memory, accuracy) away from it.

The split that passes the noise test by the widest margin dates the shift: the night it began.
A night's many figures are judged together by sharing one false-alarm budget: ``CELL_P`` is one
in 365 × 1,000, so that at most one false alarm a year falls on 1,000 figures judged every night,
however many figures a night has (Bonferroni over a year of figure-nights). A shift for the worse
is a regression for ``REPORTED`` nights from the night it began; older, it is the figure's new
normal. A shift for the better is an improvement, noted only. Values that are not finite are
never judged.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist

from tipc.metrics.noise import MAD_FLOOR, MAD_SCALE, MinEffect, TrendPolicy, TrendVerdict

MIN_AFTER = 3  # nights a shift must show in before it is judged: one or two nights may be spikes
REPORTED = 10  # nights a shift stays this night's regression after it began
RANK_P = 0.01
ALARMS_A_YEAR = 1.0  # false alarms a year per 1,000 figures judged every night
CELL_P = ALARMS_A_YEAR / (365 * 1000)
# Over many nights the chance of all beyond even a small distance is tiny, but the before median is
# only an estimate: however many nights a shift has, each must be a σ beyond it.
LEAST_Z = 1.0
# The fewest values before a shift with which the rank test can pass at all: its smallest p, all
# ``MIN_AFTER`` after values beyond every before value, is 1 / C(before + MIN_AFTER, MIN_AFTER). Fewer
# (a small ``--trend-min-runs``) would judge every figure steady for ever.
FEWEST_BEFORE = next(n for n in range(1, 1000) if 1 / math.comb(n + MIN_AFTER, MIN_AFTER) <= RANK_P)


def least_before(policy: TrendPolicy) -> int:
    """The values a split needs before it: ``--trend-min-runs``, and never fewer than the rank test needs."""
    return max(policy.min_runs, FEWEST_BEFORE)


@dataclass(frozen=True, slots=True)
class Shift:
    began: int  # index of the night it began in the values judged (this night's is the last)
    before: float  # median of the values before it
    after: float  # of the values since, the one nearest the before level
    z: float  # (after − before) in σ of the noise, signed
    p: float  # one-sided Mann–Whitney p of after against before, in the shift's direction

    @property
    def effect(self) -> float:
        """The relative change, signed: 0.1 is 10 % higher."""
        return self.after / self.before - 1 if self.before else math.inf


@dataclass(frozen=True, slots=True)
class Change:
    verdict: TrendVerdict
    shift: Shift | None  # the shift judged, for a regression or an improvement
    known: int  # finite earlier values within the window
    needs: int  # more nights before a shift can be judged (0 once it can)


def figure_kind(unit: str) -> str:
    """A figure's kind for its minimum effect, by its unit: times and speeds, memory, the rest accuracy."""
    if unit in ("ms", "s", "samples/s"):
        return "time"
    return "memory" if unit in ("MB", "GB") else "accuracy"


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _noise(before: Sequence[float], median: float) -> float:
    """σ of the before values: the larger of their scaled MAD and the standard deviation of those
    within 4 MADs (spikes left out). Either alone is often low by a fifth over thirty nights, and a
    σ taken too low is a false alarm: three nights each 2.2 σ out is rare, each 1.8 σ out is not."""
    mad = MAD_SCALE * _median([abs(v - median) for v in before])
    kept = [v for v in before if abs(v - median) <= 4 * mad]
    sd = math.sqrt(sum((v - median) ** 2 for v in kept) / (len(kept) - 1)) if len(kept) > 1 else 0.0
    return max(mad, sd, MAD_FLOOR * abs(median))


def _rank_p(after: Sequence[float], before: Sequence[float], higher: bool) -> float:
    from scipy.stats import mannwhitneyu  # ~0.3 s, for the reports that judge trends only

    result = mannwhitneyu(after, before, alternative="greater" if higher else "less")
    return float(result.pvalue)


@functools.cache
def z_needed(nights: int) -> float:
    """How far, in σ, every one of ``nights`` values must be beyond the before level for noise
    to put them all there with probability ``CELL_P`` at most: ``Φ⁻¹(1 − CELL_P^(1/nights))``."""
    return max(NormalDist().inv_cdf(1 - CELL_P ** (1 / nights)), LEAST_Z)


def _candidates(values: Sequence[float], policy: TrendPolicy) -> list[tuple[float, Shift]]:
    """Every split with enough values on each side, as (its margin over ``z_needed``, its shift)."""
    out = []
    for split in range(len(values) - MIN_AFTER, least_before(policy) - 1, -1):
        before, after = values[max(0, split - policy.runs) : split], values[split:]
        median = _median(before)
        # The after value nearest the before level: every night since the split is at least this far.
        level = min(after) if min(after) > median else max(after) if max(after) < median else median
        if level != median:  # after values on both sides of the median: no shift, no noise to measure
            z = (level - median) / _noise(before, median)
            out.append((abs(z) / z_needed(len(after)), Shift(split, median, level, z, math.nan)))
    return out


def find_shift(values: Sequence[float], min_effect: float, policy: TrendPolicy) -> Shift | None:
    """The clearest shift of ``values`` (finite, oldest first) that passes all three tests, or None."""
    for margin, shift in sorted(_candidates(values, policy), key=lambda c: -c[0]):
        if margin < 1:
            return None  # sorted: no later candidate is clearer
        if abs(shift.effect) < min_effect:
            continue
        before = values[max(0, shift.began - policy.runs) : shift.began]
        p = _rank_p(values[shift.began :], before, shift.z > 0)
        if p <= RANK_P:
            return replace(shift, p=p)
    return None


def judge_change(
    earlier: Sequence[float | None],
    value: float | None,
    higher_is_better: bool,
    min_effect: float,
    policy: TrendPolicy,
) -> Change:
    """``earlier``: the figure's values in earlier runs, oldest first, ``None`` where a run had
    none; the last ``policy.runs + REPORTED`` finite ones are judged with ``value``."""
    known = [v for v in earlier if v is not None and math.isfinite(v)][-(policy.runs + REPORTED) :]
    if value is None or not math.isfinite(value):
        return Change(TrendVerdict.NO_VALUE, None, len(known), 0)
    needs = max(0, least_before(policy) + MIN_AFTER - 1 - len(known))
    if needs:
        return Change(TrendVerdict.LEARNING, None, len(known), needs)
    values = [*known, value]
    shift = find_shift(values, min_effect, policy)
    if shift is None or len(values) - shift.began > REPORTED:
        return Change(TrendVerdict.STEADY, None, len(known), 0)
    worse = (shift.z > 0) != higher_is_better
    return Change(TrendVerdict.REGRESSION if worse else TrendVerdict.IMPROVEMENT, shift, len(known), 0)


def min_effect_of(unit: str, effects: MinEffect) -> float:
    return float(getattr(effects, figure_kind(unit)))
