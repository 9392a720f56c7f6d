"""Each benchmark figure of this run against its earlier runs: the report's trends and the regressions.

For every stage and figure of this run (``tipc.report.figures``: train ips, inference ms per
batch size, throughput, memory), the values of the same config's earlier runs come from the
trend history (``tipc.history.reports``), and the night's rule (``tipc.history.rule``) says whether the series
shifted and since which night; the noise band drawn is ``tipc.metrics.noise``'s. Regressions come
first, then improvements, then the rest in stage order; a regression is also a finding that
``--fail-on regression`` turns into a failed run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tipc.history.changes import REPORTED
from tipc.history.keys import short_name
from tipc.history.rule import began, judge_figure
from tipc.history.store import RunFigures, SeriesKey, StageKey
from tipc.metrics.noise import Band, TrendPolicy, TrendVerdict, noise_band
from tipc.report.figures import FIGURE_BY_KEY, FIGURES
from tipc.report.sparkline import Sparkline, sparkline
from tipc.report.svg import fmt_figure

_RANK = {TrendVerdict.REGRESSION.value: 0, TrendVerdict.IMPROVEMENT.value: 1}
_FIGURE_ORDER = {f.key: i for i, f in enumerate(FIGURES)}


@dataclass(frozen=True, slots=True)
class Regression:
    """A figure of this run whose series shifted for the worse, and the night the shift began."""

    config: str
    stage: str
    figure: str
    unit: str
    value: float
    band: Band  # the noise band drawn: the earlier runs' median ± k·MAD
    runs: int
    anchor: str = ""  # the stage's details in the report
    began: str = ""  # the run id of the night the shift began ("" for this run's)
    before: float = 0.0  # the level before the shift (the median of the runs before it)
    effect: float = 0.0  # the relative change, signed

    def message(self) -> str:
        unit = self.unit
        since = f"since run {self.began}" if self.began else "in this run"
        return (
            f"{short_name(self.config)} {self.stage}: {self.figure} {fmt_figure(self.value, unit)} shifted "
            f"{self.effect:+.1%} {since} (from a median of {fmt_figure(self.before, unit)}; {self.runs} earlier runs)"
        )


@dataclass(frozen=True, slots=True)
class TrendRow:
    anchor: str  # the stage's details, "" when this run has no record of it
    stage: str
    figure: str
    unit: str
    value: float | None
    verdict: str  # a noise.TrendVerdict value
    band: Band | None
    runs: int  # earlier values judged against (or known, while learning)
    spark: Sparkline | None  # None when no run has a value
    note: str = ""  # why this run has no value: "not compared: training failed in this run"
    needs: int = 0  # while learning: more nights before a shift can be judged
    began: str = ""  # a regression's or improvement's first night (its run id)
    before: float = 0.0  # the level before that shift
    effect: float = 0.0  # the shift, relative and signed


@dataclass(frozen=True, slots=True)
class Trends:
    rows: tuple[TrendRow, ...]
    regressions: tuple[Regression, ...]
    policy: TrendPolicy
    earlier: int  # earlier runs in the history window (the fewest, when several configs share the report)


_JUDGED_VERDICTS = (TrendVerdict.REGRESSION, TrendVerdict.IMPROVEMENT, TrendVerdict.STEADY)
_JUDGED = tuple(v.value for v in _JUDGED_VERDICTS)


def judged_figures(trends: Trends | None) -> int:
    """How many of this run's figures were judged against their noise band (not learning, no value)."""
    return 0 if trends is None else sum(1 for row in trends.rows if row.verdict in _JUDGED)


def _label(key: SeriesKey, multi: bool) -> str:
    return f"{key[0]} (node {key[1]})" if multi else key[0]


def _series_keys(current: RunFigures, earlier: Sequence[Mapping[SeriesKey, float]]) -> list[SeriesKey]:
    """This run's series, then those only earlier runs have (shown as "no value"); stages in the
    order they ran, figures in ``FIGURES`` order within a stage."""
    keys = dict.fromkeys(k for run in (current.figures, *reversed(earlier)) for k in run if k[2] in FIGURE_BY_KEY)
    stages = {k[:2]: i for i, k in reversed(list(enumerate(keys)))}
    return sorted(keys, key=lambda k: (stages[k[:2]], _FIGURE_ORDER[k[2]]))


def _row(
    key: SeriesKey,
    label: str,
    current: RunFigures,
    earlier: Sequence[RunFigures],
    anchor: str,
    policy: TrendPolicy,
    why: str,
) -> TrendRow:
    figure = FIGURE_BY_KEY[key[2]]
    past = [run.figures.get(key) for run in earlier]
    value = current.figures.get(key)
    change = judge_figure(past, value, figure.higher_is_better, figure.unit, policy)
    finite = [(run.run, v) for run, v in zip(earlier, past, strict=True) if v is not None and math.isfinite(v)]
    known = [v for _, v in finite][-policy.runs :]
    band = noise_band(known, policy.k) if change.verdict in _JUDGED_VERDICTS else None
    shown = known + ([] if value is None else [value])
    shift = change.shift
    return TrendRow(
        anchor,
        label,
        figure.label,
        figure.unit,
        value,
        change.verdict.value,
        band,
        min(change.known, policy.runs),
        sparkline(shown, band) if shown else None,
        why if value is None else "",
        change.needs,
        began(change, [r for r, _ in finite], current.run),
        shift.before if shift else 0.0,
        shift.effect if shift else 0.0,
    )


def _config_rows(
    current: RunFigures,
    history: Sequence[RunFigures],
    anchors: Mapping[StageKey, str],
    policy: TrendPolicy,
    unjudged: Mapping[StageKey, str],
) -> tuple[list[TrendRow], int]:
    earlier = [e for e in history if e.config == current.config and e.run < current.run][-(policy.runs + REPORTED) :]
    keys = _series_keys(current, [e.figures for e in earlier])
    multi = len({k[1] for k in keys}) > 1
    rows = [
        _row(k, _label(k, multi), current, earlier, anchors.get(k[:2], ""), policy, unjudged.get(k[:2], ""))
        for k in keys
    ]
    return rows, min(len(earlier), policy.runs)


def build_trends(
    run: Sequence[RunFigures],
    history: Sequence[RunFigures],
    anchors: Mapping[StageKey, str],
    policy: TrendPolicy,
    unjudged: Mapping[StageKey, str] | None = None,
) -> Trends:
    """``run``: this run's lines (one per config); ``history``: the trend store as written
    (``record_run``). Each config's figures are judged against that config's earlier runs.
    ``unjudged``: this run's stages that did not pass, and why their figures are left out."""
    rows: list[tuple[TrendRow, str]] = []
    earlier = []
    for current in run:
        config_rows, runs = _config_rows(current, history, anchors, policy, unjudged or {})
        rows.extend((row, current.config) for row in config_rows)
        earlier.append(runs)
    rows.sort(key=lambda rc: _RANK.get(rc[0].verdict, 2))  # stable: stage order within each rank
    regressions = tuple(
        Regression(config, r.stage, r.figure, r.unit, r.value, r.band, r.runs, r.anchor, r.began, r.before, r.effect)
        for r, config in rows
        if r.verdict == TrendVerdict.REGRESSION.value and r.band is not None and r.value is not None
    )
    return Trends(tuple(r for r, _ in rows), regressions, policy, min(earlier, default=0))
