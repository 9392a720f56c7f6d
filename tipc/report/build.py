"""Node runs → ReportModel: header, verdict, matrix, stage details, performance.

The verdict, the tally and the performance figures are this run's records alone; the
matrix and the stage details show carried-over records too, marked as an earlier run's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from tipc.history.store import StageKey
from tipc.history.summaries import status_counts
from tipc.report.load import NodeRun, RunIds, is_carried, run_ids, run_roots
from tipc.report.matrix import build_matrix
from tipc.report.model import Comparison, Header, HistoryEntry, NodeInfo, ReportModel, StageGroup, Tally
from tipc.report.naming import RowKey, is_multi_node, make_anchors, row_key, stage_key
from tipc.report.perf import build_performance
from tipc.report.predictions import build_predictions
from tipc.report.stages import each_stage_group
from tipc.report.states import build_states
from tipc.report.trainbench import build_train_benchmark
from tipc.report.trends import Trends, judged_figures
from tipc.results.records import RunInfo, StageRecord, run_verdict
from tipc.run.criteria import criteria_of
from tipc.triage.culprits import read_culprits


@dataclass(frozen=True, slots=True)
class Anchors:
    stages: dict[StageKey, str]
    rows: dict[RowKey, str]


def all_records(runs: Sequence[NodeRun]) -> tuple[StageRecord, ...]:
    return tuple(r for run in runs for r in run.records)


def anchors_for(records: Sequence[StageRecord]) -> Anchors:
    multi = is_multi_node(records)
    return Anchors(
        make_anchors((stage_key(r) for r in records), "stage", multi),
        make_anchors((row_key(r) for r in records), "chain", multi),
    )


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


def _node_from_records(rank: int, records: Sequence[StageRecord], head: RunInfo) -> NodeInfo:
    """A node of a merged directory: its facts beyond host and timing are node 0's."""
    starts = [r.start for r in records if r.start]
    start = min(starts, default=0.0)
    end = max((r.start + r.duration for r in records if r.start), default=0.0)
    return NodeInfo(
        rank, records[0].host, head.device, head.paddle_version, head.python_version, format_time(start), end - start
    )


def node_infos(runs: Sequence[NodeRun]) -> tuple[NodeInfo, ...]:
    """One entry per node rank, from the node's own run.json when it has one; empty on one node."""
    records = all_records(runs)
    ranks = sorted({r.node_rank for r in records} | {run.info.node_rank for run in runs})
    if len(ranks) < 2:
        return ()
    own = {run.info.node_rank: run.info for run in runs if {r.node_rank for r in run.records} <= {run.info.node_rank}}
    head = head_info(runs)
    out = []
    for rank in ranks:
        info = own.get(rank)
        if info is None:
            out.append(_node_from_records(rank, [r for r in records if r.node_rank == rank], head))
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


def tally(records: Sequence[StageRecord], ids: RunIds) -> Tally:
    own = [r for r in records if not is_carried(r, ids)]
    counts = status_counts(r.status.value for r in own)
    carried = status_counts(r.status.value for r in records if is_carried(r, ids))
    return Tally(
        tuple(counts.items()),
        len(own),
        run_verdict(r.status for r in own),
        tuple((s, n) for s, n in carried.items() if n),
    )


def build_report(
    runs: Sequence[NodeRun],
    report_dir: Path,
    anchors: Anchors,
    *,
    comparison: Comparison | None = None,
    history: tuple[HistoryEntry, ...] = (),
    generated: str = "",
    trends: Trends | None = None,
    paged: bool = False,
) -> ReportModel:
    """``paged``: the stage details are left out, for ``chain_groups`` to give one chain at a time."""
    records = all_records(runs)
    multi = is_multi_node(records)
    head = header(runs)
    ids = run_ids(runs)
    own = [r for r in records if not is_carried(r, ids)]
    roots = run_roots(runs)
    return ReportModel(
        title=f"tipc · {head.model} · {head.mode}",
        generated=generated,
        header=head,
        tally=tally(records, ids),
        comparison=comparison,
        matrix=build_matrix(records, anchors.stages, anchors.rows, multi, ids),
        groups=() if paged else tuple(chain_groups(runs, report_dir, anchors)),
        performance=build_performance([r for r in records if not is_carried(r, ids)], anchors.stages),
        history=history,
        train_benchmark=build_train_benchmark([r for r in records if not is_carried(r, ids)], anchors.stages),
        predictions=build_predictions([r for r in records if not is_carried(r, ids)], anchors.stages, roots),
        trends=trends,
        criteria=criteria_of(own, judged_figures(trends)),
        states=build_states(own, anchors.stages, {k: c for run in runs for k, c in read_culprits(run.source).items()}),
    )


def chain_groups(runs: Sequence[NodeRun], report_dir: Path, anchors: Anchors) -> Iterator[StageGroup]:
    """Each chain's (× node's) stage details, in the matrix's order, read when asked for."""
    records = all_records(runs)
    return each_stage_group(
        records, anchors.stages, anchors.rows, report_dir, is_multi_node(records), run_ids(runs), run_roots(runs)
    )
