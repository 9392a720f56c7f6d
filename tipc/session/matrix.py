"""The matrix report both fronts write at the end of a run over several configs.

Written when the run covers more than one results folder, or any config of it could not run
here (its row says why): ``<report root>/matrix/<run id>/index.html``. One row per config of
the selection, sorted by name; each links to its results folder's report written just before.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tipc.history.keys import config_key
from tipc.session.problems import ConfigProblem, ProblemKind, split
from tipc.session.report import report_root, writes_reports
from tipc.suites.front import dialect_for, tags

if TYPE_CHECKING:
    from tipc.report.overview import ConfigOutcome
    from tipc.results.records import StageRecord
    from tipc.session.lifecycle import TipcSession
    from tipc.session.settings import ConfigTarget


def outcomes(
    session: TipcSession,
    planned: Sequence[ConfigTarget],
    problems: Sequence[ConfigProblem],
    root: Path,
    reports: Sequence[Path],
) -> list[ConfigOutcome]:
    """Each config's records of this run, and its report when one was written (``reports``)."""
    from tipc.report.overview import ConfigOutcome
    from tipc.report.write import INDEX, report_mode_dir

    by_config: dict[str, list[StageRecord]] = {}
    for record in session.records():
        by_config.setdefault(record.config, []).append(record)
    written = set(reports)
    rows = []
    for target in planned:
        plan = session.plan(target)
        index = report_mode_dir(root, plan.model, plan.mode) / session.run_id / INDEX
        rows.append(
            ConfigOutcome(
                config=target.display,
                mode=str(plan.mode),
                tags=tags(target.path, target.options.suite or None),
                suite=dialect_for(target.path, target.options.suite or None)[0].name,
                model=plan.model,
                records=tuple(by_config.get(plan.config_path, ())),
                report=index if index in written else None,
                regressions=sum(1 for g in session.regressions if g.config == config_key(plan.config_path)),
            )
        )
    rows.extend(
        ConfigOutcome(
            config=p.display,
            mode=p.mode,
            tags=tags(p.path),
            suite=dialect_for(p.path)[0].name,
            problem=p.reason,
            applicable=p.kind is not ProblemKind.NOT_APPLICABLE,
        )
        for p in problems
    )
    return sorted(rows, key=lambda o: o.config)


def history_store(session: TipcSession, cwd: Path) -> Path:
    """Where the matrix's history lives: the history store of the run's results (the ``history``
    setting, else the output root of its first results folder), else beside the matrix pages."""
    from tipc.history.matrix import MATRIX
    from tipc.history.store import history_file
    from tipc.results.folder import portable_root

    pages = report_root(session.settings, cwd) / MATRIX
    for folder in session.folders():
        mode_dir = portable_root(folder.path)
        return history_file(mode_dir, mode_dir.parent.name, mode_dir.name, pages, session.settings.run.history)
    return history_file(pages, "", "", pages, session.settings.run.history)


def cause_history(session: TipcSession, cwd: Path) -> list[tuple[str, frozenset[str]]]:
    """The signatures of earlier runs' failures, oldest first, from the history store (or the matrix
    pages' summaries under the report root before it; empty when none was written): what the
    console's failures by cause say "since" by. The one place the fronts read that history."""
    from tipc.history.matrix import MATRIX
    from tipc.history.matrix import cause_history as read

    pages = report_root(session.settings, cwd) / MATRIX
    return read(pages, session.run_id, lambda _: None, history_store(session, cwd))


def write_matrix(session: TipcSession, cwd: Path, reports: Sequence[Path]) -> Path | None:
    """The matrix page's path; None when this run has none (one folder, no problem, no reports here)."""
    if not session.owner or not writes_reports(session.settings):
        return None
    folders = [f for f in session.folders() if f.records_file.is_file()]
    planned, problems = split(session)
    if len(folders) + len(problems) < 2:
        return None
    root = report_root(session.settings, cwd)
    from tipc.report.overview_write import write_overview  # jinja2: only when a page is written

    try:
        rows = outcomes(session, planned, problems, root, reports)
        return write_overview(rows, root, session.run_id, session.warnings.append, history_store(session, cwd))
    except Exception as exc:  # noqa: BLE001 - whatever broke in the page, the results and reports stand
        session.warnings.append(f"tipc: matrix report not written ({type(exc).__name__}: {exc})")
        return None
