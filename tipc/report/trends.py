"""Each benchmark figure of this run against its earlier runs: the report's trends and the regressions.

For every stage and figure of this run (``tipc.report.figures``: train ips, inference ms per
batch size, throughput, memory), the values of the same config's earlier runs come from the
trend history (``tipc.history.reports``), and the night's rule (``tipc.metrics.rule``) says whether the
new value left the noise band. Regressions come first, then improvements, then the rest in
stage order; a regression is also a finding that ``--fail-on regression`` turns into a failed run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tipc.history.keys import short_name
from tipc.history.store import RunFigures, SeriesKey
from tipc.metrics.noise import Band, TrendPolicy, TrendVerdict
from tipc.metrics.rule import judge_figure
from tipc.report.figures import FIGURE_BY_KEY, FIGURES
from tipc.report.naming import StageKey
from tipc.report.sparkline import Sparkline, sparkline
from tipc.report.svg import fmt_figure, fmt_range

_RANK = {TrendVerdict.REGRESSION.value: 0, TrendVerdict.IMPROVEMENT.value: 1}
_FIGURE_ORDER = {f.key: i for i, f in enumerate(FIGURES)}


@dataclass(frozen=True, slots=True)
class Regression:
    """A figure of this run outside its noise band on the worse side."""

    config: str
    stage: str
    figure: str
    unit: str
    value: float
    band: Band
    runs: int
    anchor: str = ""  # the stage's details in the report

    def message(self) -> str:
        b, unit = self.band, self.unit
        return (
            f"{short_name(self.config)} {self.stage}: {self.figure} {fmt_figure(self.value, unit)} is outside its "
            f"noise band {fmt_range(b.low, b.high, unit)} (median {fmt_figure(b.median, unit)} over {self.runs} "
            "earlier runs)"
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


@dataclass(frozen=True, slots=True)
class Trends:
    rows: tuple[TrendRow, ...]
    regressions: tuple[Regression, ...]
    policy: TrendPolicy
    earlier: int  # earlier runs in the history window (the fewest, when several configs share the report)


_JUDGED = (TrendVerdict.REGRESSION.value, TrendVerdict.IMPROVEMENT.value, TrendVerdict.STEADY.value)


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
    earlier: Sequence[Mapping[SeriesKey, float]],
    anchor: str,
    policy: TrendPolicy,
    why: str,
) -> TrendRow:
    figure = FIGURE_BY_KEY[key[2]]
    past = [run.get(key) for run in earlier]
    value = current.figures.get(key)
    judged = judge_figure(past, value, figure.higher_is_better, policy)
    shown = [v for v in past if v is not None][-policy.runs :] + ([] if value is None else [value])
    return TrendRow(
        anchor,
        label,
        figure.label,
        figure.unit,
        value,
        judged.verdict.value,
        judged.band,
        judged.runs,
        sparkline(shown, judged.band) if shown else None,
        why if value is None else "",
    )


def _config_rows(
    current: RunFigures,
    history: Sequence[RunFigures],
    anchors: Mapping[StageKey, str],
    policy: TrendPolicy,
    unjudged: Mapping[StageKey, str],
) -> tuple[list[TrendRow], int]:
    earlier = [e.figures for e in history if e.config == current.config and e.run < current.run][-policy.runs :]
    keys = _series_keys(current, earlier)
    multi = len({k[1] for k in keys}) > 1
    rows = [
        _row(k, _label(k, multi), current, earlier, anchors.get(k[:2], ""), policy, unjudged.get(k[:2], ""))
        for k in keys
    ]
    return rows, len(earlier)


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
        Regression(config, r.stage, r.figure, r.unit, r.value, r.band, r.runs, r.anchor)
        for r, config in rows
        if r.verdict == TrendVerdict.REGRESSION.value and r.band is not None and r.value is not None
    )
    return Trends(tuple(r for r, _ in rows), regressions, policy, min(earlier, default=0))
