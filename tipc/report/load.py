"""Results directories → one ``NodeRun`` per node, read with the cluster merge's reader."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from tipc.errors import ResultsError
from tipc.results.folder import RUN_INFO, Warn, load_results_dir, node_dirs
from tipc.results.records import RunInfo, StageRecord


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
            raise ResultsError(str(run.source / RUN_INFO), 0,
                              f"found model/mode {run.info.model}/{run.info.mode}, expected "
                              f"{first.info.model}/{first.info.mode} as in {first.source / RUN_INFO}: "
                              "one report covers one run")
    return tuple(runs)
