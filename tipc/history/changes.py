"""Did a figure's series shift, since which night, and is that a regression? Pure arithmetic.

A figure's values, oldest first with this night's last, are split at every night a shift could
have begun: the values from it on (*after*, this night's among them, at least ``MIN_AFTER``)
against the up to ``policy.runs`` values before it (*before*, at least ``policy.min_runs``). A
split is a shift when all three hold:

1. **clear against the noise**: Student's two-sample t test, spikes left out. Before values
   beyond 4 scaled MADs of their median are spikes; the rest give the before *level* (their mean).
   An after value beyond ``SPIKE_Z`` σ of the after values' median is a spike too; a split that
   begins with one, keeps fewer than ``MIN_AFTER``, or has them on both sides of the level is no
   shift, so one or two slow nights (a busy machine) never pass for one. The after values' mean must
   be beyond the level by ``z_needed`` standard errors, σ pooled from both sides (at least 1 % of the
   median: ``MAD_FLOOR``): Student's t quantile for the split's share of ``CELL_P`` (``after_p``:
   half for three nights after, a sixth for four, …), so that noise passes any split of a night with
   that chance at most (5.7 for three nights after thirty);
2. **clear in rank**: the one-sided Mann–Whitney U test of after against before gives
   p ≤ ``RANK_P`` (as asv judges; alone it cannot be sure from three nights, with the first
   test it guards against noise that is not normal);
3. **large enough to matter**: the after values' mean is at least the minimum effect of the
   figure's kind (``MinEffect``: time and speed, memory, accuracy) away from the before level.

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
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace

from tipc.metrics.noise import MAD_FLOOR, MAD_SCALE, MinEffect, TrendPolicy, TrendVerdict

MIN_AFTER = 3  # nights a shift must show in before it is judged: one or two nights may be spikes
REPORTED = 10  # nights a shift stays this night's regression after it began
RANK_P = 0.01
ALARMS_A_YEAR = 1.0  # false alarms a year per 1,000 figures judged every night
CELL_P = ALARMS_A_YEAR / (365 * 1000)
# An after night further than this many σ from the other after nights' median is a spike (a busy
# machine's night), left out as the before values' spikes are left out of σ.
SPIKE_Z = 3.0
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
    before: float  # the level before it: mean of the values before it, spikes left out
    after: float  # mean of the values since, spikes left out
    z: float  # (after − before) in standard errors, signed
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


def _squares(values: Sequence[float], centre: float) -> float:
    return sum((v - centre) ** 2 for v in values)


def _rank_p(after: Sequence[float], before: Sequence[float], higher: bool) -> float:
    from scipy.stats import mannwhitneyu  # ~0.3 s, for the reports that judge trends only

    result = mannwhitneyu(after, before, alternative="greater" if higher else "less")
    return float(result.pvalue)


@functools.cache
def z_needed(degrees: int, after: int) -> float:
    """How far, in standard errors, the mean of ``after`` values must be beyond the before level for
    noise to put it there with probability ``after_p(after)`` at most: Student's t quantile with the
    ``degrees`` of freedom σ was measured with (σ from thirty-odd nights is now and then low, and the
    normal quantile would alarm several times too often)."""
    from scipy.stats import t

    return float(t.isf(after_p(after), degrees))


def after_p(after: int) -> float:
    """The share of a night's ``CELL_P`` spent on the split with ``after`` values (spikes among them
    counted): 1/(k(k+1)) for the k-th shortest (a half, a sixth, a twelfth, …), so that the splits
    judged in a night, together, raise a false alarm with chance ``CELL_P`` at most (Bonferroni), and
    a long shift still needs no more than a few σ."""
    k = after - MIN_AFTER + 1
    return CELL_P / (k * (k + 1))


def _candidates(values: Sequence[float], policy: TrendPolicy) -> list[tuple[float, Shift]]:
    """Every split with enough values on each side, as (its margin over ``z_needed``, its shift)."""
    out = []
    for split in range(len(values) - MIN_AFTER, least_before(policy) - 1, -1):
        before, since = values[max(0, split - policy.runs) : split], values[split:]
        median = statistics.median(before)
        # The before values' spikes (beyond 4 scaled MADs) would raise the level and widen σ for weeks.
        mad = MAD_SCALE * statistics.median([abs(v - median) for v in before])
        kept = [v for v in before if abs(v - median) <= 4 * mad]
        level, floor = statistics.fmean(kept), MAD_FLOOR * abs(median)
        spread = math.sqrt(_squares(kept, level) / (len(kept) - 1)) if len(kept) > 1 else 0.0
        middle = statistics.median(since)
        after = [v for v in since if abs(v - middle) <= SPIKE_Z * max(spread, floor)]
        # A shift begins with a night like those after it, not with a spike; too few nights once spikes
        # are left out, or nights on both sides of the level, are no shift either.
        if after[:1] != since[:1] or len(after) < MIN_AFTER or min(after) <= level <= max(after):
            continue
        mean, degrees = statistics.fmean(after), len(kept) + len(after) - 2
        sigma = max(math.sqrt((_squares(kept, level) + _squares(after, mean)) / degrees), floor)
        z = (mean - level) / (sigma * math.sqrt(1 / len(after) + 1 / len(kept)))
        out.append((abs(z) / z_needed(degrees, len(since)), Shift(split, level, mean, z, math.nan)))
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
