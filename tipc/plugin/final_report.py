"""The HTML report both fronts write at the end of a run."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from tipc.plugin.settings import Settings
from tipc.report import write_report


def final_report(settings: Settings, results_dirs: Sequence[Path], default_root: Path) -> Path | None:
    """This run's report, or None when there is none to write.

    On several nodes only node 0 writes one, of its own results, without waiting for
    the peers: ``tipc merge`` + ``tipc report`` give the joined view.
    """
    if not settings.report or settings.run.dry_run or not results_dirs:
        return None
    if any(t.node and t.node.multi_node and t.node.node_rank != 0 for t in settings.targets):
        return None
    return write_report(results_dirs, settings.report_dir or default_root)
