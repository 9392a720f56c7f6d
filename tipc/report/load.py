"""Results directories → one ``NodeRun`` per node, read with the cluster merge's reader, and which
run each record belongs to.

A results folder's ``results.jsonl`` may hold records *carried over* from earlier runs (a
``-k``/``--lf`` run keeps the latest record of every stage it did not run). Such a record
keeps the run id of the run that made it, so the report can tell this run's verdict and
figures from older ones.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tipc.errors import ResultsError
from tipc.files import read
from tipc.results.folder import RUN_INFO, Warn, load_results_dir, node_dirs
from tipc.results.records import RunInfo, StageRecord

# (node rank, shard) → the id of that node's (shard's) run ("" before run ids): every node and
# every shard of a split matrix is a run of its own.
RunIds = Mapping[tuple[int, str], str]
# The folders a report may read files from (None: a record this process wrote, trusted as it is).
Roots = tuple[str, ...] | None
# How deep a results folder lies in its repo at most: test_tipc/output/<model>/<mode>/node<k>/shard<k>.
REPO_DEPTH = 6


@dataclass(frozen=True, slots=True)
class NodeRun:
    """One node's run (or a merged directory's runs) as read from one results directory."""

    source: Path
    info: RunInfo
    records: tuple[StageRecord, ...]


def load_runs(paths: Sequence[Path], warn: Warn | None = None) -> tuple[NodeRun, ...]:
    """Each path a results directory, or a ``<mode>`` directory standing for its ``node<k>/`` children.
    With ``warn``, a bad record line is reported there and skipped instead of stopping the report."""
    if not paths:
        raise ResultsError("<arguments>", 0, "no results directory given; expected at least one")
    runs = []
    for p in node_dirs(paths):
        info, records = load_results_dir(p, warn)
        runs.append(NodeRun(Path(p), info, tuple(records)))
    first = runs[0]
    for run in runs[1:]:
        if (run.info.model, run.info.mode) != (first.info.model, first.info.mode):
            raise ResultsError(
                str(run.source / RUN_INFO),
                0,
                f"found model/mode {run.info.model}/{run.info.mode}, expected "
                f"{first.info.model}/{first.info.mode} as in {first.source / RUN_INFO}: "
                "one report covers one run",
            )
    return tuple(runs)


def run_ids(runs: Sequence[NodeRun]) -> dict[tuple[int, str], str]:
    """Each node's (shard's) own run id. A merged folder's ``run.json`` is node 0's (shard 1's):
    another's run is the newest id among its records (ids sort by start time, carried ones are older)."""
    ids: dict[tuple[int, str], str] = {}
    for run in runs:
        own = (run.info.node_rank, run.info.shard)
        ids[own] = run.info.run_id
        for part in sorted({(r.node_rank, r.shard) for r in run.records} - {own}):
            ids.setdefault(part, max(r.run_id for r in run.records if (r.node_rank, r.shard) == part))
    return ids


def is_carried(record: StageRecord, ids: RunIds) -> bool:
    """True for a record an earlier run made. Results from before run ids cannot tell: never."""
    own = ids.get((record.node_rank, record.shard), "")
    return bool(own) and record.run_id != own


def carried_note(record: StageRecord, ids: RunIds) -> str:
    """What the report says of a carried-over record; "" for this run's."""
    if not is_carried(record, ids):
        return ""
    return f"from earlier run {record.run_id}" if record.run_id else "from an earlier run (before run ids)"


def run_roots(runs: Sequence[NodeRun]) -> tuple[str, ...]:
    """Where the files a report shows may lie: each results folder, and a stage's cwd (its repo) when
    the results folder lies in it, at most ``REPO_DEPTH`` levels down (never the file system's root).
    A record is input like any other: a log, an image or an output it names elsewhere (``/etc``, a
    ``../`` path, a link out) is not read."""
    roots: dict[str, None] = {}
    for run in runs:
        source = os.path.realpath(run.source)
        roots[source] = None
        for cwd in dict.fromkeys(r.cwd for r in run.records if r.cwd):
            base = os.path.realpath(cwd)
            depth = len(Path(os.path.relpath(source, base)).parts)
            if base != os.sep and read.inside(source, [base]) and depth <= REPO_DEPTH:
                roots[base] = None
    return tuple(roots)


def readable(path: str | Path, roots: Roots) -> bool:
    """Whether a path a record names lies in ``roots``."""
    return roots is None or read.inside(path, roots)
