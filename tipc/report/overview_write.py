"""``write_overview``: a run's configs → ``<out_root>/matrix/<run id>/index.html`` (+ ``latest``).

Its rows go into the history store (``store``: ``tipc.history.matrix``), what the next run
compares each config with; the page's folder keeps the page alone. The ``latest`` symlink and
``latest.html`` point at the newest page, as for the per-folder reports.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tipc.files.write import write_atomic
from tipc.history.matrix import MATRIX, cause_history, earlier_runs, remember
from tipc.history.store import history_file
from tipc.report.build import format_time
from tipc.report.overview import ConfigOutcome, OverviewPage, build_page
from tipc.report.render import environment
from tipc.report.write import INDEX, update_latest
from tipc.results.folder import Warn


def render_overview(page: OverviewPage) -> str:
    return environment().get_template("overview.html").render(p=page)


def write_overview(
    outcomes: Sequence[ConfigOutcome],
    out_root: Path,
    run_id: str,
    warn: Warn | None = None,
    store: Path | None = None,
) -> Path:
    """Render the matrix page of run ``run_id`` and return the path of its ``index.html``; its rows
    go into ``store`` (without one, the store beside the pages: ``tipc.history.store.history_file``)."""
    matrix_dir = Path(out_root) / MATRIX
    store = store if store is not None else history_file(matrix_dir, "", "", matrix_dir)
    page_dir = matrix_dir / run_id
    page_dir.mkdir(parents=True, exist_ok=True)
    wanted = {(o.config, o.mode) for o in outcomes}
    warn = warn or (lambda m: print(m, file=sys.stderr))
    history = earlier_runs(matrix_dir, run_id, wanted, warn, store)
    causes = cause_history(matrix_dir, run_id, lambda _: None, store)  # a bad summary: said once, just above
    page = build_page(run_id, outcomes, page_dir, history, format_time(time.time()), causes)
    write_atomic(page_dir / INDEX, render_overview(page))
    remember(store, matrix_dir, run_id, page.rows, warn)
    update_latest(matrix_dir, run_id, page.title)
    return page_dir / INDEX
