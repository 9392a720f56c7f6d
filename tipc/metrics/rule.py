"""The night's regression rule, in one place: the report's trends, the night's index and a figure's bisect
judge a figure through ``judge_figure``, so that all three change together when the rule does.

``regressed_since``: of a figure regressed tonight, the night its regression began (the first of the
nights in a row, up to tonight, each outside the band of the nights before it).
"""

from __future__ import annotations

from collections.abc import Sequence

from tipc.metrics.noise import Judgement, TrendPolicy, TrendVerdict, judge


def judge_figure(
    earlier: Sequence[float | None], value: float | None, higher_is_better: bool, policy: TrendPolicy
) -> Judgement:
    """``value`` against the figure's ``earlier`` values (oldest first, None where a night had none)."""
    return judge(earlier, value, higher_is_better, policy)


def regressed(
    earlier: Sequence[float | None], value: float | None, higher_is_better: bool, policy: TrendPolicy
) -> bool:
    return judge_figure(earlier, value, higher_is_better, policy).verdict is TrendVerdict.REGRESSION


def regressed_since(nights: Sequence[tuple[str, float | None]], higher_is_better: bool, policy: TrendPolicy) -> str:
    """``nights``: (run id, value), oldest first, tonight last. The run id of the first night of the regression
    that tonight is part of ("" when tonight did not regress)."""
    values = [v for _, v in nights]
    since = ""
    for at in range(len(nights) - 1, -1, -1):
        if not regressed(values[:at], values[at], higher_is_better, policy):
            break
        since = nights[at][0]
    return since
