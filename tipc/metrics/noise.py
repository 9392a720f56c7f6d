"""Is a figure's new value news? Its noise band over earlier runs, and the verdict: pure arithmetic.

The band is ``median ± k · MAD`` of the earlier values, a robust spread one slow night cannot
widen. MAD here is the *scaled* median absolute deviation (× 1.4826), which estimates the
standard deviation of normal noise, so ``k = 3`` reads as "three sigma". A history that never
moved has a MAD of 0 and would call any wobble news: the MAD is floored at ``MAD_FLOOR`` of
the median (1 %), so with ``k = 3`` a perfectly stable figure must move by more than 3 % to be
judged. Below ``min_runs`` earlier values nothing is judged: a band from two points is a guess.

Leaving the band on the worse side is a regression (higher is worse for times and memory,
lower for ips and throughput); leaving it on the better side is an improvement, noted only.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace

MAD_SCALE = 1.4826  # MAD × this estimates σ of normally distributed noise
MAD_FLOOR = 0.01  # the least spread assumed, as a fraction of the median's size
DEFAULT_RUNS = 30
DEFAULT_K = 3.0
DEFAULT_MIN_RUNS = 10


@dataclass(frozen=True, slots=True)
class MinEffect:
    """The least relative change a regression must have, per kind of figure (``--min-effect``):
    timing noise is a few per cent even on a quiet machine, memory and accuracy barely move."""

    time: float = 0.06  # times, speeds and throughput
    memory: float = 0.02
    accuracy: float = 0.01  # every other figure


def parse_min_effect(texts: Iterable[str]) -> MinEffect:
    """``KIND=PERCENT`` words (``time=5%``, ``memory=2``) over the defaults. Raises ValueError."""
    kinds = [f.name for f in fields(MinEffect)]
    effects = MinEffect()
    for text in texts:
        kind, sep, value = text.partition("=")
        if not sep or kind.strip() not in kinds:
            raise ValueError(f"expected KIND=PERCENT with KIND one of {', '.join(kinds)}; got {text!r}")
        try:
            percent = float(value.strip().removesuffix("%"))
        except ValueError:
            percent = math.nan
        if not 0 <= percent < 100:
            raise ValueError(f"expected a percentage from 0 to 100, e.g. {kind.strip()}=5%; got {text!r}")
        effects = replace(effects, **{kind.strip(): percent / 100})
    return effects


@dataclass(frozen=True, slots=True)
class TrendPolicy:
    """``runs``: earlier runs a band is made of (the last ones); ``k``: the band's half-width in
    MADs; ``min_runs``: earlier values needed before a figure is judged; ``min_effect``: the least
    change a regression must have (``tipc.history.changes`` judges regressions)."""

    runs: int = DEFAULT_RUNS
    k: float = DEFAULT_K
    min_runs: int = DEFAULT_MIN_RUNS
    min_effect: MinEffect = field(default_factory=MinEffect)

    def problem(self) -> str:
        """What is wrong with these numbers, "" when nothing is."""
        if self.min_runs < 2:
            return f"--trend-min-runs {self.min_runs}: expected 2 or more (a band needs a spread)"
        if self.runs < self.min_runs:
            return f"--trend-runs {self.runs}: expected at least --trend-min-runs ({self.min_runs})"
        if not self.k > 0:
            return f"--noise-k {self.k:g}: expected a number above 0, e.g. 3"
        return ""


class TrendVerdict(enum.Enum):
    REGRESSION = "regression"
    IMPROVEMENT = "improvement"
    STEADY = "steady"  # inside the band
    LEARNING = "learning"  # too few earlier values to judge yet
    NO_VALUE = "no value"  # this run has no value for the figure


@dataclass(frozen=True, slots=True)
class Band:
    median: float
    low: float
    high: float

    def holds(self, value: float) -> bool:
        return self.low <= value <= self.high


@dataclass(frozen=True, slots=True)
class Judgement:
    verdict: TrendVerdict
    band: Band | None  # None while learning
    runs: int  # earlier values the band was made of (or that exist, while learning)


def noise_band(values: Sequence[float], k: float) -> Band:
    """``median ± k · max(scaled MAD, MAD_FLOOR · |median|)`` of at least one value; never below 0
    for figures that cannot be (times, memory, speeds): a very noisy history has a wide band."""
    import statistics  # ~2 ms, for the reports that judge trends, not for every run's start

    median = statistics.median(values)
    mad = MAD_SCALE * statistics.median(abs(v - median) for v in values)
    half = k * max(mad, MAD_FLOOR * abs(median))
    low = median - half if min(values) < 0 else max(0.0, median - half)
    return Band(median, low, median + half)


def judge(
    earlier: Sequence[float | None], value: float | None, higher_is_better: bool, policy: TrendPolicy
) -> Judgement:
    """``earlier``: the figure's values in earlier runs, oldest first, ``None`` where a run had none
    (left out; only the last ``policy.runs`` values count)."""
    known = [v for v in earlier if v is not None][-policy.runs :]
    if value is None:
        return Judgement(TrendVerdict.NO_VALUE, None, len(known))
    if len(known) < policy.min_runs:
        return Judgement(TrendVerdict.LEARNING, None, len(known))
    band = noise_band(known, policy.k)
    if band.holds(value):
        return Judgement(TrendVerdict.STEADY, band, len(known))
    better = (value > band.high) == higher_is_better
    return Judgement(TrendVerdict.IMPROVEMENT if better else TrendVerdict.REGRESSION, band, len(known))
