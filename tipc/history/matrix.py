"""What the matrix report remembers between runs: each page's rows (every config's verdict, failing
stages and failure causes), in the history store (``tipc.history.store``), read back by the next.

Each config's comparison is with its latest earlier run that covered it, by run id (ids sort by
start time): the previous night, or the last night the config was in the matrix. Only a few
earlier runs are read, newest first, so that a year of nights costs what a week does.

Before the store, each page kept its rows in a file beside it, ``matrix.json`` (``summary.json`` before
December 2026); no page writes one now. A store without matrix rows reads those once
(``tipc.history.legacy``), and the first page recorded takes them in with its own.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from tipc.history.legacy import LOOK_BACK, read_pages
from tipc.history.store import History, HistoryError, MatrixRow
from tipc.results.folder import Warn

MATRIX = "matrix"  # <report root>/matrix/<run id>/: the matrix pages
HistoryKey = tuple[str, str]  # (config as node ids spell it, mode)


@dataclass(frozen=True, slots=True)
class Earlier:
    """What a config did in an earlier run: its verdict and the stages that failed."""

    run_id: str
    verdict: str
    failures: tuple[str, ...]
    causes: tuple[str, ...] = ()  # the signatures of its failures' causes (summaries from before: none)


class PageRow(Protocol):
    """A matrix page's row as the history keeps it (``tipc.report.overview.OverviewRow``)."""

    @property
    def config(self) -> str: ...
    @property
    def mode(self) -> str: ...
    @property
    def verdict(self) -> str: ...
    @property
    def failures(self) -> tuple[str, ...]: ...
    @property
    def causes(self) -> tuple[str, ...]: ...


def _earlier(run: str, rows: Sequence[MatrixRow]) -> dict[HistoryKey, Earlier]:
    return {(r.config, r.mode): Earlier(run, r.verdict, r.failures, r.causes) for r in rows}


Past = list[tuple[str, dict[HistoryKey, Earlier]]]  # run id and its rows, newest run first


def _stored(store: Path, current: str, warn: Warn) -> Past | None:
    """The store's runs before ``current`` (at most ``LOOK_BACK``); None when it has none yet."""
    try:
        stored = History(store, warn).matrix(current, LOOK_BACK)
    except (HistoryError, OSError) as exc:
        warn(f"tipc: matrix history {store} not read ({exc}); no earlier run to compare with")
        return []
    return [(run, _earlier(run, rows)) for run, rows in stored] or None


def past_runs(matrix_dir: Path, current: str, warn: Warn, store: Path) -> Past:
    """The runs before ``current``, newest first: the store's, else (none there yet) the ``matrix.json``
    files an older tipc left beside the pages under ``matrix_dir``."""
    stored = _stored(store, current, warn)
    return (
        stored
        if stored is not None
        else [(run, _earlier(run, rows)) for run, rows in read_pages(matrix_dir, current, warn)]
    )


def remember(store: Path, matrix_dir: Path, run_id: str, rows: Sequence[PageRow], warn: Warn) -> None:
    """This page's rows into the store, in one transaction with the rows of the pages from before the
    store when it has none yet. A store that does not work is left as it is, with a warning."""
    history = History(store, warn)
    try:
        imported = [] if history.matrix(limit=1) else read_pages(matrix_dir, run_id, lambda _: None)
        pages: dict[str, Sequence[MatrixRow]] = dict(imported)
        pages[run_id] = [MatrixRow(r.config, r.mode, r.verdict, r.failures, r.causes) for r in rows]
        history.record_matrix(pages)
    except (HistoryError, OSError) as exc:
        warn(f"tipc: matrix history {store} not written ({exc})")


def cause_history(matrix_dir: Path, current: str, warn: Warn, store: Path) -> list[tuple[str, frozenset[str]]]:
    """The signatures of the failures of each run before ``current``, oldest first: what tells a
    cause new or recurring since when (``tipc.metrics.causes.group``). The one reader of that history."""
    runs = [(run_id, frozenset(c for e in entries.values() for c in e.causes)) for run_id, entries in
            past_runs(matrix_dir, current, warn, store)]  # fmt: skip
    return runs[::-1]


def earlier_runs(
    matrix_dir: Path, current: str, wanted: Collection[HistoryKey], warn: Warn, store: Path
) -> dict[HistoryKey, Earlier]:
    """For each wanted (config, mode), its entry in the latest run before ``current`` that has it."""
    found: dict[HistoryKey, Earlier] = {}
    for _, entries in past_runs(matrix_dir, current, warn, store):
        if len(found) == len(wanted):
            break
        for key, entry in entries.items():
            if key in wanted:
                found.setdefault(key, entry)
    return found
