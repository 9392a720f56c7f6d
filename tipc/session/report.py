"""The HTML reports both fronts write at the end of a run, and where they go."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tipc.report.write import write_report
from tipc.results.folder import ResultsDir
from tipc.session.settings import Settings

if TYPE_CHECKING:
    from tipc.report.trends import Regression
    from tipc.run.criteria import Criteria

REPORTS = "reports"


def report_root(settings: Settings, cwd: Path) -> Path:
    """``--report-dir``, else ``reports/`` in the current directory: one rule for both fronts,
    whatever pytest's rootdir or the spelling of the options. A run started in ``/`` (a service
    without a home) writes beside its first target instead: ``<repo>/reports``."""
    if settings.report_dir is not None:
        return settings.report_dir
    cwd = cwd.resolve()
    if cwd == Path(cwd.anchor) and settings.targets:
        return Path(settings.targets[0].options.repo) / REPORTS
    return cwd / REPORTS


def writes_reports(settings: Settings) -> bool:
    """Reports are wanted, and this node writes them (on several nodes only node 0 does)."""
    if not settings.report or settings.run.dry_run:
        return False
    return not any(t.node and t.node.multi_node and t.node.node_rank != 0 for t in settings.targets)


def final_report(
    settings: Settings,
    folders: Sequence[ResultsDir],
    root: Path,
    warn: Callable[[str], None],
    regression: Callable[[Regression], None] | None = None,
    criteria: Callable[[Criteria], None] | None = None,
) -> list[Path]:
    """One report per results folder that holds records (a folder is one model and mode).

    On several nodes only node 0 writes one, of its own results, without waiting for
    the peers: ``tipc merge`` + ``tipc report`` give the joined view. A report that
    cannot be written is a warning, not the run's failure: the results it would show
    are on disk already, and the run's status is its stages'. ``regression`` hears of every
    figure a report found outside its noise band over earlier runs (``--trend-runs`` ...).
    """
    if not writes_reports(settings):
        return []
    written = []
    for folder in folders:
        if not folder.records_file.is_file():
            continue
        try:
            written.append(
                write_report(
                    [folder.path],
                    root,
                    warn=warn,
                    trends=settings.trends,
                    regression=regression,
                    criteria=criteria,
                    fail_on_regression="regression" in settings.fail_on,
                    store=settings.run.history,
                )
            )
        except Exception as exc:  # noqa: BLE001 - whatever broke in the report, the results stand
            warn(
                f"tipc: report not written ({type(exc).__name__}: {exc}); the results are complete: "
                f"`tipc report {folder.path}` writes it again"
            )
    return written


def night_index(
    settings: Settings, folders: Sequence[ResultsDir], root: Path, night: str, warn: Callable[[str], None]
) -> Path | None:
    """The night's index (``tipc.report.night_write``) of a run that is a whole night: a shard's is the merged
    night's (``tipc report --night``), a node's other than node 0's is node 0's. Like a report, an index that
    cannot be written is a warning: the results stand."""
    found = [f.path for f in folders if f.records_file.is_file()]
    if not found or not writes_reports(settings) or settings.schedule.shard:
        return None
    from tipc.report.night_write import write_night  # the index's modules: only when one is written

    try:
        return write_night(found, root, night, trends=settings.trends, warn=warn, store=settings.run.history)
    except Exception as exc:  # noqa: BLE001 - whatever broke in the index, the results and reports stand
        warn(f"tipc: the night's index not written ({type(exc).__name__}: {exc}); `tipc report --night` writes it")
        return None
