"""Node runs → ReportModel: header, verdict, matrix, stage details, performance.

The verdict, the tally and the performance figures are this run's records alone; the
matrix and the stage details show carried-over records too, marked as an earlier run's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from tipc.history.store import StageKey
from tipc.history.summaries import RunSummary, status_counts
from tipc.report import naming, perf, predictions
from tipc.report.load import NodeRun, Records, RunIds, is_carried, run_ids, run_roots
from tipc.report.matrix import build_matrix
from tipc.report.model import Comparison, Header, HistoryEntry, NodeInfo, ReportModel, StageGroup, Tally
from tipc.report.naming import RowKey, row_key, stage_key
from tipc.report.spill import Scratch
from tipc.report.stages import each_stage_group
from tipc.report.states import build_states
from tipc.report.trainbench import build_train_benchmark, is_benchmark_train
from tipc.report.trends import Trends, judged_figures
from tipc.results.records import RunInfo, StageRecord
from tipc.run import criteria
from tipc.triage.culprits import read_culprits


@dataclass(frozen=True, slots=True)
class Anchors:
    stages: dict[StageKey, str]
    rows: dict[RowKey, str]
    chain_of: dict[str, str] = field(default_factory=dict)  # stage anchor → its chain's (row's) anchor
    sizes: dict[RowKey, int] = field(default_factory=dict)  # stages of each chain (× node)


def all_records(runs: Sequence[NodeRun]) -> Records:
    """Every node's records, read from their files each time they are iterated."""
    return Records.joined(run.records for run in runs)


def this_run(records: Iterable[StageRecord], ids: RunIds) -> Iterator[StageRecord]:
    """The records of ``records`` this run made (not carried over from an earlier one)."""
    return (r for r in records if not is_carried(r, ids))


def tapped(records: Iterable[StageRecord], *taps: Callable[[StageRecord], object]) -> Iterator[StageRecord]:
    """``records`` as they come, each shown to ``taps`` first: one reading gathers several parts."""
    for r in records:
        for tap in taps:
            tap(r)
        yield r


class Anchoring:
    """Every stage's and chain's anchor, gathered one record at a time (``add``): the records are read
    once for the summary and the anchors together, and none is kept."""

    def __init__(self, multi: bool) -> None:
        self.stages, self.rows = naming.Anchoring("stage", multi), naming.Anchoring("chain", multi)
        self.chain_of: dict[str, str] = {}
        self.sizes: Counter[RowKey] = Counter()

    def add(self, r: StageRecord) -> None:
        row = row_key(r)
        self.chain_of[self.stages.add(stage_key(r))] = self.rows.add(row)
        self.sizes[row] += 1

    def anchors(self) -> Anchors:
        return Anchors(self.stages.anchors, self.rows.anchors, self.chain_of, dict(self.sizes))


def format_time(ts: float) -> str:
    if not ts:
        return ""
    return datetime.fromtimestamp(ts).astimezone().strftime("%Y-%m-%d %H:%M:%S %z")


def run_span(runs: Sequence[NodeRun]) -> tuple[float, float]:
    """(start, duration) of all nodes together: first start to last end."""
    starts = [r.info.start for r in runs if r.info.start]
    if not starts:
        return 0.0, max(r.info.duration for r in runs)
    end = max(r.info.start + r.info.duration for r in runs if r.info.start)
    return min(starts), end - min(starts)


def head_info(runs: Sequence[NodeRun]) -> RunInfo:
    """Node 0's ``run.json``: the run's name and config (a merged folder's is node 0's already)."""
    return min(runs, key=lambda r: r.info.node_rank).info


def _node_from_records(rank: int, records: Iterable[StageRecord], head: RunInfo) -> NodeInfo:
    """A node of a merged directory: its facts beyond host and timing are node 0's."""
    host, start, end = None, 0.0, 0.0
    for r in records:
        if r.node_rank != rank:
            continue
        host = r.host if host is None else host
        if r.start:
            start = min(start, r.start) if start else r.start
            end = max(end, r.start + r.duration)
    return NodeInfo(
        rank, host or "", head.device, head.paddle_version, head.python_version, format_time(start), end - start
    )


def node_infos(runs: Sequence[NodeRun]) -> tuple[NodeInfo, ...]:
    """One entry per node rank, from the node's own run.json when it has one; empty on one node."""
    records = all_records(runs)
    ranks = sorted(records.ranks | {run.info.node_rank for run in runs})
    if len(ranks) < 2:
        return ()
    own = {run.info.node_rank: run.info for run in runs if run.records.ranks <= {run.info.node_rank}}
    head = head_info(runs)
    out = []
    for rank in ranks:
        info = own.get(rank)
        if info is None:
            out.append(_node_from_records(rank, records, head))
        else:
            out.append(
                NodeInfo(
                    rank,
                    info.host,
                    info.device,
                    info.paddle_version,
                    info.python_version,
                    format_time(info.start),
                    info.duration,
                )
            )
    return tuple(out)


def header(runs: Sequence[NodeRun]) -> Header:
    first = head_info(runs)
    start, duration = run_span(runs)
    return Header(
        model=first.model,
        mode=first.mode,
        run_id=first.run_id,
        config=first.config,
        config_sha256=first.config_sha256,
        overrides=tuple(sorted((k, str(v)) for k, v in first.overrides.items())),
        tipc_version=first.tipc_version,
        paddle_version=first.paddle_version,
        python=first.python,
        python_version=first.python_version,
        device=first.device,
        host=first.host,
        nodes=node_infos(runs),
        start=format_time(start),
        duration=duration,
        notes=tuple(dict.fromkeys(n for r in runs for n in r.info.notes)),
    )


def tally(summary: RunSummary) -> Tally:
    """This run's counts and verdict, and the carried-over records' counts, from the run's summary."""
    carried = status_counts(s.status for s in summary.stages if s.carried)
    return Tally(
        tuple(summary.counts().items()),
        len(summary.own),
        summary.verdict(),
        tuple((s, n) for s, n in carried.items() if n),
    )


def build_report(
    runs: Sequence[NodeRun],
    report_dir: Path,
    anchors: Anchors,
    summary: RunSummary,
    *,
    comparison: Comparison | None = None,
    history: tuple[HistoryEntry, ...] = (),
    generated: str = "",
    trends: Trends | None = None,
    paged: bool = False,
    scratch: Scratch | None = None,
) -> ReportModel:
    """``paged``: the stage details are left out, for ``chain_groups`` to give one chain at a time.
    Each part reads the records once more from their files: none holds them all. ``scratch``: where
    the matrix's rows and the figures' rows are kept until their pages are written, else in memory."""
    records = all_records(runs)
    multi = len(records.ranks) > 1
    head = header(runs)
    ids = run_ids(runs)
    roots = run_roots(runs)
    # The matrix, the figures, the predictions and the criteria from one reading; the benchmark trains
    # are one a chain at most, kept for their table.
    figures, judged = perf.Gathered(anchors.stages, multi, scratch), criteria.Gathered()
    shown, benches = predictions.Gathered(anchors.stages, roots), []

    def gather(r: StageRecord) -> None:
        if is_carried(r, ids):  # the figures and the verdict are this run's alone
            return
        for part in (figures.add, judged.add, shown.add):
            part(r)
        if is_benchmark_train(r):
            benches.append(r)

    matrix = build_matrix(tapped(records, gather), anchors.stages, anchors.rows, multi, ids, anchors.sizes, scratch)
    groups: tuple[StageGroup, ...] = ()
    if not paged:  # one page: the chains' details in the matrix's order
        order = {row.anchor: n for n, row in enumerate(matrix.rows)}
        groups = tuple(sorted(chain_groups(runs, report_dir, anchors), key=lambda g: order.get(g.anchor, 0)))
    return ReportModel(
        title=f"tipc · {head.model} · {head.mode}",
        generated=generated,
        header=head,
        tally=tally(summary),
        comparison=comparison,
        matrix=matrix,
        groups=groups,
        performance=figures.performance(),
        history=history,
        train_benchmark=build_train_benchmark(benches, anchors.stages),
        predictions=shown.view(),
        trends=trends,
        criteria=judged.criteria(judged_figures(trends)),
        states=build_states(
            this_run(records, ids), anchors.stages, {k: c for run in runs for k, c in read_culprits(run.source).items()}
        ),
    )


def chain_groups(runs: Sequence[NodeRun], report_dir: Path, anchors: Anchors) -> Iterator[StageGroup]:
    """Each chain's (× node's) stage details, one chain at a time, read when asked for."""
    records = all_records(runs)
    return each_stage_group(
        records, anchors.stages, anchors.rows, anchors.sizes, report_dir, len(records.ranks) > 1, run_ids(runs),
        run_roots(runs),
    )  # fmt: skip
