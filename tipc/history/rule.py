"""The night's regression rule, in one place: the report's trends, the night's index and a figure's bisect
judge a figure through ``judge_figure``, so that all three change together when the rule does. The rule
itself is ``tipc.history.changes`` (a shift in the series, dated to the night it began, large enough for the
figure's kind).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tipc.history.changes import MIN_AFTER, Change, judge_change, min_effect_of
from tipc.metrics.noise import TrendPolicy, TrendVerdict

NIGHTS_SHOWN = MIN_AFTER  # values a shift must show in before it is judged: a bisect measures a commit so often


def judge_figure(
    earlier: Sequence[float | None], value: float | None, higher_is_better: bool, unit: str, policy: TrendPolicy
) -> Change:
    """``value`` against the figure's ``earlier`` values (oldest first, None where a night had none); ``unit``
    says the figure's kind, and so its minimum effect."""
    return judge_change(earlier, value, higher_is_better, min_effect_of(unit, policy.min_effect), policy)


def regressed(
    earlier: Sequence[float | None], value: float | None, higher_is_better: bool, unit: str, policy: TrendPolicy
) -> bool:
    return judge_figure(earlier, value, higher_is_better, unit, policy).verdict is TrendVerdict.REGRESSION


def began(change: Change, runs: Sequence[str], current: str) -> str:
    """The run id of the night a shift began ("" when none): ``runs`` are the earlier runs with a finite value,
    oldest first, ``current`` the run judged."""
    if change.shift is None:
        return ""
    at = len(runs) - change.known + change.shift.began
    return runs[at] if at < len(runs) else current


def regressed_since(
    nights: Sequence[tuple[str, float | None]], higher_is_better: bool, unit: str, policy: TrendPolicy
) -> str:
    """``nights``: (run id, value), oldest first, tonight last. The run id of the first night of the regression
    that tonight is part of ("" when tonight did not regress)."""
    if not nights:
        return ""
    *earlier, (tonight, value) = nights
    change = judge_figure([v for _, v in earlier], value, higher_is_better, unit, policy)
    if change.verdict is not TrendVerdict.REGRESSION:
        return ""
    finite = [run for run, v in earlier if v is not None and math.isfinite(v)]
    return began(change, finite, tonight)
