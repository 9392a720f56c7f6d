"""The HTML report both fronts write at the end of a run."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from tipc.plugin.settings import Settings
from tipc.report import write_report
from tipc.run.results import ResultsDir


def final_report(settings: Settings, results: Sequence[ResultsDir], default_root: Path,
                 warn: Callable[[str], None]) -> Path | None:
    """This run's report of the results directories that hold records, or None when there is none to write.

    On several nodes only node 0 writes one, of its own results, without waiting for
    the peers: ``tipc merge`` + ``tipc report`` give the joined view. A report that
    cannot be written is a warning, not the run's failure: the results it would show
    are on disk already, and the run's status is its stages'.
    """
    results_dirs = [r.path for r in results if r.records_file.is_file()]
    if not settings.report or settings.run.dry_run or not results_dirs:
        return None
    if any(t.node and t.node.multi_node and t.node.node_rank != 0 for t in settings.targets):
        return None
    try:
        return write_report(results_dirs, settings.report_dir or default_root)
    except Exception as exc:  # noqa: BLE001 - whatever broke in the report, the results stand
        dirs = " ".join(str(d) for d in results_dirs)
        warn(f"tipc: report not written ({type(exc).__name__}: {exc}); the results are complete: "
             f"`tipc report {dirs}` writes it again")
        return None
