"""Results directories → one ``NodeRun`` per node, read with the cluster merge's reader."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from tipc.cluster.merge import RUN, load_results_dir, node_dirs
from tipc.config.errors import ConfigError
from tipc.run.record import RunInfo, StageRecord


@dataclass(frozen=True, slots=True)
class NodeRun:
    """One node's run (or a merged directory's runs) as read from one results directory."""

    source: Path
    info: RunInfo
    records: tuple[StageRecord, ...]


def load_runs(paths: Sequence[Path]) -> tuple[NodeRun, ...]:
    """Each path a results directory, or a ``<mode>`` directory standing for its ``node<k>/`` children."""
    if not paths:
        raise ConfigError("<arguments>", 0, "no results directory given; expected at least one")
    runs = []
    for p in node_dirs(paths):
        info, records = load_results_dir(p)
        runs.append(NodeRun(Path(p), info, tuple(records)))
    first = runs[0]
    for run in runs[1:]:
        if (run.info.model, run.info.mode) != (first.info.model, first.info.mode):
            raise ConfigError(str(run.source / RUN), 0,
                              f"found model/mode {run.info.model}/{run.info.mode}, expected "
                              f"{first.info.model}/{first.info.mode} as in {first.source / RUN}: "
                              "one report covers one run")
    return tuple(runs)
