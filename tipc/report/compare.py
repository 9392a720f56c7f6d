"""Run-to-run comparison: what changed between a run and its baseline, the newest earlier run of
the same config (``tipc.history.summaries``: the summaries kept in the history store).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tipc.history.store import StageKey
from tipc.history.summaries import RunSummary, StageSummary
from tipc.report.figures import FIGURE_BY_KEY, stage_figures
from tipc.report.load import RunIds, is_carried
from tipc.report.model import Comparison, FigureMove, NotCompared, StageChange
from tipc.results.records import StageRecord, Status

DEFAULT_THRESHOLD = 0.10


def summarize(
    model: str,
    mode: str,
    timestamp: str,
    records: Iterable[StageRecord],
    *,
    run_id: str = "",
    config: str = "",
    run_ids: RunIds | None = None,
    target_commit: str = "",
) -> RunSummary:
    """``run_ids``: each node's run (``load.run_ids``); records of other runs are marked carried."""
    return RunSummary(
        model,
        mode,
        timestamp,
        tuple(
            StageSummary(
                r.id,
                r.node_rank,
                r.status.value,
                r.reason,
                tuple(sorted(stage_figures(r).items())),
                is_carried(r, run_ids or {}),
            )
            for r in records
        ),
        run_id,
        config,
        target_commit,
    )


def _label(key: StageKey, multi: bool) -> str:
    return f"{key[0]} (node {key[1]})" if multi else key[0]


def compare(
    before: RunSummary,
    after: RunSummary,
    anchors: Mapping[StageKey, str],
    *,
    against: str,
    against_href: str = "",
    threshold: float = DEFAULT_THRESHOLD,
) -> Comparison:
    """What changed in ``after``'s own stages. ``before`` counts whole, carried stages too:
    they were the latest word on those stages when it ran. Figures are compared only between
    two passes: a failed stage's figures (an OOM-killed training's peak, a crash's few steps)
    are no performance change, and are listed as not compared instead."""
    old = {s.key: s for s in before.stages}
    mine = after.own
    multi = len({s.node_rank for s in mine}) > 1
    new_failures: list[StageChange] = []
    fixed: list[StageChange] = []
    still: list[StageChange] = []
    moves: list[FigureMove] = []
    skipped: list[NotCompared] = []
    for s in mine:
        prev = old.get(s.key)
        label, anchor = _label(s.key, multi), anchors.get(s.key, "")
        change = StageChange(label, anchor, prev.status if prev else "", s.status, s.reason)
        was_bad = prev is not None and Status(prev.status).is_failure
        if Status(s.status).is_failure:
            (still if was_bad else new_failures).append(change)
        elif was_bad and s.status == Status.PASSED.value:
            fixed.append(change)
        if prev is None or not (prev.figures or s.figures):
            continue
        why = not_compared_why(prev.status, s.status, kind_of(s.id))
        if why:
            skipped.append(NotCompared(label, anchor, why))
        else:
            moves.extend(_moves(label, anchor, dict(prev.figures), dict(s.figures), threshold))
    return Comparison(
        against=against,
        against_href=against_href,
        threshold=threshold,
        new_failures=tuple(new_failures),
        fixed=tuple(fixed),
        still_failing=tuple(still),
        moves=tuple(moves),
        not_compared=tuple(skipped),
    )


def kind_of(stage_id: str) -> str:
    """The stage's kind as a word for people, from its id's last part (``chain::infer[...]``)."""
    name = stage_id.rpartition("::")[2].partition("[")[0]
    return {"train": "training", "eval": "evaluation", "export": "export", "infer": "inference"}.get(name, name)


def not_compared_why(before: str, after: str, kind: str) -> str:
    """Why a stage's figures are not compared ("" when both runs passed it)."""
    if after != Status.PASSED.value:
        return f"not compared: {kind} {after} in this run"
    if before != Status.PASSED.value:
        return f"not compared: {kind} {before or 'did not run'} in the earlier run"
    return ""


def _moves(
    label: str, anchor: str, before: dict[str, float], after: dict[str, float], threshold: float
) -> list[FigureMove]:
    out = []
    for key, new in after.items():
        old, fig = before.get(key), FIGURE_BY_KEY.get(key)
        if old is None or fig is None or old == 0:
            continue
        change = (new - old) / abs(old)
        if abs(change) > threshold:
            out.append(
                FigureMove(
                    label, anchor, fig.label, fig.unit, old, new, change, better=(change > 0) == fig.higher_is_better
                )
            )
    return out
