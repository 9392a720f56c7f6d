"""What the matrix report remembers between runs: each page's rows (every config's verdict, failing
stages and failure causes), in the history store (``tipc.history.store``), read back by the next.

Each config's comparison is with its latest earlier run that covered it, by run id (ids sort by
start time): the previous night, or the last night the config was in the matrix. Only a few
earlier runs are read, newest first, so that a year of nights costs what a week does.

Before the store, each page kept its rows in a file beside it (still written: the page's own record),
``matrix.json``, named ``summary.json`` before December 2026 (the name of each report's own summary,
``tipc.report.compare``, a format of its own); a store without matrix rows reads those once, and one
that does not read is skipped with a warning naming it: history never stops a report.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

from tipc.files import read
from tipc.history.store import History, HistoryError, MatrixRow
from tipc.report.overview import VERDICTS, Earlier, HistoryKey, OverviewRow
from tipc.results.folder import Warn

MATRIX = "matrix"  # <report root>/matrix/<run id>/: the matrix pages and their summaries
PAGE_ROWS = "matrix.json"
OLD_PAGE_ROWS = "summary.json"  # what pages written before December 2026 call it
SCHEMA = 1
LOOK_BACK = 30  # earlier runs read at most, newest first
MAX_SUMMARY_BYTES = 64 << 20  # a summary holds a line per stage


def page_rows_json(run_id: str, rows: Sequence[OverviewRow]) -> str:
    return json.dumps(
        {
            "schema": SCHEMA,
            "run_id": run_id,
            "rows": [
                {
                    "config": r.config,
                    "mode": r.mode,
                    "verdict": r.verdict,
                    "failures": list(r.failures),
                    "causes": list(r.causes),
                }
                for r in rows
            ],
        },
        indent=1,
    )


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} is {value!r:.60}, expected text")
    return value


def read_page_rows(path: Path) -> tuple[str, dict[HistoryKey, Earlier]]:
    """(run id, each config's entry); ``ValueError`` (or ``OSError``) says why it is not one."""
    data = read.json_of(read.read_bytes(path, MAX_SUMMARY_BYTES))
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("rows"), list):
        raise ValueError(f"expected a matrix summary of schema {SCHEMA} with rows")
    run_id = _text(data.get("run_id"), "run_id")
    entries = {}
    for row in data["rows"]:
        if not isinstance(row, dict) or not isinstance(row.get("failures"), list):
            raise ValueError(f"row {row!r:.60} is not an object with failures")
        verdict = _text(row.get("verdict"), "verdict")
        if verdict not in VERDICTS:
            raise ValueError(f"verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
        key = (_text(row.get("config"), "config"), _text(row.get("mode"), "mode"))
        causes = row.get("causes", [])  # summaries from before causes were kept have none
        if not isinstance(causes, list):
            raise ValueError(f"causes {causes!r:.60} is not a list")
        entries[key] = Earlier(
            run_id,
            verdict,
            tuple(_text(f, "failure") for f in row["failures"]),
            tuple(_text(c, "cause") for c in causes),
        )
    return run_id, entries


def _summaries(matrix_dir: Path, current: str, warn: Warn) -> Iterator[tuple[str, dict[HistoryKey, Earlier]]]:
    """The earlier runs' summaries, newest first, at most ``LOOK_BACK`` read; a bad one skipped with ``warn``."""
    try:
        dirs = sorted((d for d in matrix_dir.iterdir() if d.is_dir() and not d.is_symlink()), reverse=True)
    except OSError:
        return  # no matrix history yet
    read = 0
    for d in dirs:
        path = next((d / name for name in (PAGE_ROWS, OLD_PAGE_ROWS) if (d / name).is_file()), None)
        if read >= LOOK_BACK:
            return
        if d.name >= current or path is None:
            continue
        read += 1
        try:
            run_id, entries = read_page_rows(path)
        except (OSError, ValueError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            warn(f"tipc: skipped matrix history entry {path}: {exc}")
            continue
        if run_id < current:
            yield run_id, entries


Past = list[tuple[str, dict[HistoryKey, Earlier]]]  # run id and its rows, newest run first


def _stored(store: Path, current: str, warn: Warn) -> Past | None:
    """The store's runs before ``current`` (at most ``LOOK_BACK``); None when it has none yet."""
    try:
        stored = History(store, warn).matrix(current, LOOK_BACK)
    except (HistoryError, OSError) as exc:
        warn(f"tipc: matrix history {store} not read ({exc}); no earlier run to compare with")
        return []
    runs = [
        (run, {(r.config, r.mode): Earlier(run, r.verdict, r.failures, r.causes) for r in rows}) for run, rows in stored
    ]
    return runs or None


def past_runs(matrix_dir: Path, current: str, warn: Warn, store: Path | None = None) -> Past:
    """The runs before ``current``, newest first: the store's, else (none there yet, or no
    ``store``) the pages' ``matrix.json`` files under ``matrix_dir``."""
    stored = _stored(store, current, warn) if store is not None else None
    return stored if stored is not None else list(_summaries(matrix_dir, current, warn))


def remember(store: Path, matrix_dir: Path, run_id: str, rows: Sequence[OverviewRow], warn: Warn) -> None:
    """This page's rows into the store, in one transaction with the pages' summaries before the
    store when it has none yet. A store that does not work is left as it is, with a warning."""
    history = History(store, warn)
    try:
        imported = [] if history.matrix(limit=1) else list(_summaries(matrix_dir, run_id, lambda _: None))
        pages = {run: [MatrixRow(c, m, e.verdict, e.failures, e.causes) for (c, m), e in entries.items()]
                 for run, entries in imported}  # fmt: skip
        pages[run_id] = [MatrixRow(r.config, r.mode, r.verdict, r.failures, r.causes) for r in rows]
        history.record_matrix(pages)
    except (HistoryError, OSError) as exc:
        warn(f"tipc: matrix history {store} not written ({exc})")


def cause_history(
    matrix_dir: Path, current: str, warn: Warn, store: Path | None = None
) -> list[tuple[str, frozenset[str]]]:
    """The signatures of the failures of each run before ``current``, oldest first: what tells a
    cause new or recurring since when (``tipc.metrics.causes.group``). The one reader of that history."""
    runs = [(run_id, frozenset(c for e in entries.values() for c in e.causes)) for run_id, entries in
            past_runs(matrix_dir, current, warn, store)]  # fmt: skip
    return runs[::-1]


def earlier_runs(
    matrix_dir: Path, current: str, wanted: Collection[HistoryKey], warn: Warn, store: Path | None = None
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
