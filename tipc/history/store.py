"""The history store: every run's benchmark figures, its stages' durations, its report's summary and
the matrix's rows, in one SQLite file.

``<output root>/tipc-history.sqlite`` (the ``test_tipc/output`` folder the results folders are in),
or ``TIPC_HISTORY`` (``history_file``): one file for every model and mode, so a CI cache or a shared filesystem keeps
exactly that file, and deleting old reports or results folders loses no history. Written by the job
that completes a run (its report: the merge job's for a split matrix), one transaction per run;
read by shards (the durations their split balances), by reports (the trends, the baseline) and by
the matrix page and the console (each config's last verdict, the failure causes' "since").

The interface is small: ``record_run`` (a run's figures, stage durations and report summary, then
the runs beyond ``keep`` per config pruned), ``series`` (a model and mode's figures, oldest first),
``reports`` (its reports' summaries, newest first: the baseline and the report's history links),
``measured`` (the newest duration of every stage), ``record_matrix``/``matrix`` (the matrix page's
rows per run: each config's verdict and failure causes), ``prune``, and ``runs``/``export`` for
``tipc history``. The report and matrix tables came after the first file format; a file without them
reads as one without such history, and gets them at its next write (older tipcs ignore them).

The file lives on shared filesystems (NFS under Slurm), where SQLite's WAL mode does not work: it
uses the rollback journal, and waits for another writer's lock rather than failing. A file that
does not open as a store (another program's, a newer schema, a bad disk) is left as it is, with a
warning: history only guides, and a run never stops for it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tipc.errors import ResultsError

HISTORY_FILE = "tipc-history.sqlite"
SCHEMA = 1
LOCK_WAIT = 120.0  # seconds to wait for another job's transaction (a merge, a prune)

SeriesKey = tuple[str, int, str]  # stage id, node rank, figure key (tipc.report.figures)
StageKey = tuple[str, str]  # (config key, stage id)

_TABLES = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS runs (model TEXT, mode TEXT, config TEXT, run TEXT, recorded REAL NOT NULL,"
    " PRIMARY KEY (model, mode, config, run))",
    "CREATE TABLE IF NOT EXISTS figures (model TEXT, mode TEXT, config TEXT, run TEXT, stage TEXT, node INTEGER,"
    " figure TEXT, value REAL NOT NULL, PRIMARY KEY (model, mode, config, run, stage, node, figure))",
    "CREATE TABLE IF NOT EXISTS stages (mode TEXT, config TEXT, stage TEXT, duration REAL NOT NULL, peak_mb REAL,"
    " start REAL NOT NULL, PRIMARY KEY (mode, config, stage))",
    "CREATE TABLE IF NOT EXISTS reports (model TEXT, mode TEXT, config TEXT, run TEXT, summary TEXT NOT NULL,"
    " PRIMARY KEY (model, mode, config, run))",
    "CREATE TABLE IF NOT EXISTS matrix (run TEXT, config TEXT, mode TEXT, verdict TEXT NOT NULL,"
    " failures TEXT NOT NULL, causes TEXT NOT NULL, PRIMARY KEY (run, config, mode))",
)


class HistoryError(ResultsError):
    """The file is not a history store this tipc reads; the message says why."""


@dataclass(frozen=True, slots=True)
class RunFigures:
    """One run's figures of one config: ``run`` sorts runs by start (the run id, or the start time)."""

    run: str
    config: str  # tipc.history.keys.config_key
    figures: Mapping[SeriesKey, float]


@dataclass(frozen=True, slots=True)
class StageTime:
    """One stage's duration and peak memory as a run measured them."""

    config: str  # tipc.history.keys.config_key
    stage: str
    duration: float
    peak_mb: float | None
    start: float


@dataclass(frozen=True, slots=True)
class ReportSummary:
    """A run's report summary (``tipc.report.compare.RunSummary.to_json``): what later reports compare with."""

    run: str  # its order: the run id, else the start time
    config: str  # as the summary names it ("" for summaries from before configs were named)
    text: str


@dataclass(frozen=True, slots=True)
class MatrixRow:
    """One config's line of a matrix page: what the next page compares it with."""

    config: str
    mode: str
    verdict: str
    failures: tuple[str, ...]
    causes: tuple[str, ...]  # failure cause signatures (tipc.metrics.causes)


def history_file(results: Path, model: str, mode: str, fallback: Path, env: Mapping[str, str] = os.environ) -> Path:
    """Where the history of ``model`` and ``mode`` lives: ``TIPC_HISTORY``, else a plugin's choice
    (``pytest_tipc_history_store``), else the output root of ``results`` when they are its
    ``<model>/<mode>`` folder, else ``fallback`` (results kept elsewhere: the report's own mode folder)."""
    from tipc.suites.registry import history_store  # the plugins' hook: loaded by whoever asks first

    given = env.get("TIPC_HISTORY", "")
    if given:
        return Path(given)
    chosen = history_store(results, model, mode)
    if chosen is not None:
        return chosen
    if (results.name, results.parent.name) == (mode, model):
        return results.parent.parent / HISTORY_FILE
    return fallback / HISTORY_FILE


class History:
    """One store file; every method is one transaction and leaves no connection open."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @contextmanager
    def _db(self, write: bool) -> Iterator[sqlite3.Connection]:
        if not write and not self.path.is_file():
            raise FileNotFoundError(self.path)
        if write:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with closing(sqlite3.connect(self.path, timeout=LOCK_WAIT, isolation_level=None)) as db:
                db.execute("PRAGMA journal_mode=DELETE")  # no WAL: it needs shared memory NFS does not give
                db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                try:
                    if write:
                        for table in _TABLES:
                            db.execute(table)
                        db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA),))
                    self._check_schema(db)
                    yield db
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise HistoryError(str(self.path), 0, f"does not work as a tipc history store ({exc})") from None

    def _check_schema(self, db: sqlite3.Connection) -> None:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is None or row[0] != str(SCHEMA):
            raise HistoryError(str(self.path), 0, f"history schema {row and row[0]!r}, this tipc reads schema {SCHEMA}")

    def record_run(
        self,
        model: str,
        mode: str,
        run: Sequence[RunFigures],
        stages: Sequence[StageTime],
        keep: int,
        reports: Sequence[ReportSummary] = (),
    ) -> None:
        """Add (or replace) a run's figures and its report's summary (``reports``: with earlier ones
        being imported), keep each stage's newest duration, and prune each of the run's configs to
        its last ``keep`` runs; all or nothing."""
        with self._db(write=True) as db:
            db.executemany(
                "INSERT OR REPLACE INTO reports VALUES (?, ?, ?, ?, ?)",
                [(model, mode, r.config, r.run, r.text) for r in reports],
            )
            for config in dict.fromkeys(r.config for r in reports):
                _prune_reports(db, model, mode, config, keep)
            now = time.time()
            for entry in run:
                key = (model, mode, entry.config, entry.run)
                db.execute("DELETE FROM figures WHERE model = ? AND mode = ? AND config = ? AND run = ?", key)
                db.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?)", (*key, now))
                db.executemany(
                    "INSERT INTO figures VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(*key, stage, node, figure, value) for (stage, node, figure), value in entry.figures.items()],
                )
                _prune(db, model, mode, entry.config, keep)
            db.executemany(
                "INSERT INTO stages VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (mode, config, stage) DO UPDATE SET"
                " duration = excluded.duration, peak_mb = excluded.peak_mb, start = excluded.start"
                " WHERE excluded.start >= stages.start",
                [(mode, s.config, s.stage, s.duration, s.peak_mb, s.start) for s in stages],
            )

    def series(self, model: str, mode: str) -> tuple[RunFigures, ...]:
        """Every recorded run of ``model`` and ``mode``, per config, oldest run first."""
        try:
            with self._db(write=False) as db:
                rows = db.execute(
                    "SELECT r.run, r.config, f.stage, f.node, f.figure, f.value FROM runs r LEFT JOIN figures f"
                    " USING (model, mode, config, run) WHERE r.model = ? AND r.mode = ? ORDER BY r.run, r.config",
                    (model, mode),
                ).fetchall()
        except FileNotFoundError:
            return ()
        found: dict[tuple[str, str], dict[SeriesKey, float]] = {}
        for run, config, stage, node, figure, value in rows:
            figures = found.setdefault((run, config), {})
            if stage is not None:
                figures[(stage, node, figure)] = value
        return tuple(RunFigures(run, config, figures) for (run, config), figures in found.items())

    def reports(self, model: str, mode: str) -> tuple[ReportSummary, ...]:
        """The report summaries of ``model`` and ``mode``, newest run first."""
        try:
            with self._db(write=False) as db:
                if not _has(db, "reports"):
                    return ()
                rows = db.execute(
                    "SELECT run, config, summary FROM reports WHERE model = ? AND mode = ? ORDER BY run DESC, config",
                    (model, mode),
                ).fetchall()
        except FileNotFoundError:
            return ()
        return tuple(ReportSummary(run, config, text) for run, config, text in rows)

    def record_matrix(self, pages: Mapping[str, Sequence[MatrixRow]], keep: int) -> None:
        """Matrix pages' rows by run (replacing each run's earlier ones), then the runs beyond the
        last ``keep`` pruned; all or nothing."""
        with self._db(write=True) as db:
            for run, rows in pages.items():
                db.execute("DELETE FROM matrix WHERE run = ?", (run,))
                db.executemany(
                    "INSERT INTO matrix VALUES (?, ?, ?, ?, ?, ?)",
                    [(run, r.config, r.mode, r.verdict, json.dumps(r.failures), json.dumps(r.causes)) for r in rows],
                )
            _prune_matrix(db, keep)

    def matrix(self, before: str | None = None, limit: int = -1) -> list[tuple[str, tuple[MatrixRow, ...]]]:
        """The matrix rows of the last ``limit`` runs (all: -1) before ``before`` (any), newest first."""
        try:
            with self._db(write=False) as db:
                if not _has(db, "matrix"):
                    return []
                rows = db.execute(
                    "SELECT * FROM matrix WHERE run IN (SELECT DISTINCT run FROM matrix WHERE ? IS NULL OR run < ?"
                    " ORDER BY run DESC LIMIT ?) ORDER BY run DESC, config, mode",
                    (before, before, limit),
                ).fetchall()
        except FileNotFoundError:
            return []
        found: dict[str, list[MatrixRow]] = {}
        for run, config, mode, verdict, failures, causes in rows:
            try:
                row = MatrixRow(config, mode, verdict, tuple(json.loads(failures)), tuple(json.loads(causes)))
            except (TypeError, ValueError) as exc:  # not what record_matrix wrote
                raise HistoryError(str(self.path), 0, f"matrix row of run {run!r} does not read ({exc})") from None
            found.setdefault(run, []).append(row)
        return [(run, tuple(entries)) for run, entries in found.items()]

    def measured(self, mode: str) -> dict[StageKey, StageTime]:
        """The newest duration of every stage the store has for ``mode``."""
        try:
            with self._db(write=False) as db:
                rows = db.execute(
                    "SELECT config, stage, duration, peak_mb, start FROM stages WHERE mode = ?", (mode,)
                ).fetchall()
        except FileNotFoundError:
            return {}
        return {(c, s): StageTime(c, s, d, p, t) for c, s, d, p, t in rows}

    def prune(self, keep: int, model: str | None = None, mode: str | None = None) -> int:
        """Keep each config's last ``keep`` runs (of ``model``/``mode`` only, when given); the
        number of runs removed."""
        with self._db(write=True) as db:
            before = db.execute("SELECT count(*) FROM runs").fetchone()[0]
            for m, md, config in db.execute("SELECT DISTINCT model, mode, config FROM runs").fetchall():
                if model in (None, m) and mode in (None, md):
                    _prune(db, m, md, config, keep)
            for m, md, config in db.execute("SELECT DISTINCT model, mode, config FROM reports").fetchall():
                if model in (None, m) and mode in (None, md):
                    _prune_reports(db, m, md, config, keep)
            if model is None and mode is None:
                _prune_matrix(db, keep)
            return int(before - db.execute("SELECT count(*) FROM runs").fetchone()[0])

    def runs(self) -> list[tuple[str, str, str, int, str, str]]:
        """(model, mode, config, runs, first run, last run) per config with figures."""
        with self._db(write=False) as db:
            rows = db.execute(
                "SELECT model, mode, config, count(*), min(run), max(run) FROM runs"
                " GROUP BY model, mode, config ORDER BY model, mode, config"
            ).fetchall()
        return [tuple(row) for row in rows]

    def summaries(self) -> list[tuple[str, str, str, int, str, str]]:
        """(model, mode, config, reports, first run, last run) per config with report summaries, then
        ("matrix", "", "", pages, first run, last run) when the matrix has rows."""
        with self._db(write=False) as db:
            if not _has(db, "reports"):
                return []
            rows = db.execute(
                "SELECT model, mode, config, count(*), min(run), max(run) FROM reports"
                " GROUP BY model, mode, config ORDER BY model, mode, config"
            ).fetchall()
            pages = db.execute("SELECT count(DISTINCT run), min(run), max(run) FROM matrix").fetchone()
        return [tuple(row) for row in rows] + ([("matrix", "", "", *pages)] if pages[0] else [])

    def export(self) -> Iterator[dict[str, Any]]:
        """Every run as one JSON-ready object (``tipc history export``), oldest first per model and mode:
        its figures (``"kind": "figures"``), then the report summaries (``"report"``, the summary as
        its report wrote it) and the matrix pages' rows (``"matrix"``)."""
        for model, mode in dict.fromkeys((m, md) for m, md, *_ in self.runs()):
            for entry in self.series(model, mode):
                stages: dict[tuple[str, int], dict[str, float]] = {}
                for (stage, node, figure), value in entry.figures.items():
                    stages.setdefault((stage, node), {})[figure] = value
                yield {
                    "kind": "figures",
                    "model": model,
                    "mode": mode,
                    "run": entry.run,
                    "config": entry.config,
                    "stages": [{"id": s, "node": n, "figures": f} for (s, n), f in sorted(stages.items())],
                }
        for model, mode in dict.fromkeys((m, md) for m, md, config, *_ in self.summaries() if (md, config) != ("", "")):
            for report in reversed(self.reports(model, mode)):
                yield {"kind": "report", "model": model, "mode": mode, "run": report.run, "config": report.config,
                       "summary": json.loads(report.text)}  # fmt: skip
        for run, rows in reversed(self.matrix()):
            yield {"kind": "matrix", "run": run, "rows": [
                {"config": r.config, "mode": r.mode, "verdict": r.verdict, "failures": list(r.failures),
                 "causes": list(r.causes)} for r in rows]}  # fmt: skip


def _has(db: sqlite3.Connection, table: str) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone() is not None


def _prune_reports(db: sqlite3.Connection, model: str, mode: str, config: str, keep: int) -> None:
    db.execute(
        "DELETE FROM reports WHERE model = ? AND mode = ? AND config = ? AND run IN (SELECT run FROM reports"
        " WHERE model = ? AND mode = ? AND config = ? ORDER BY run DESC LIMIT -1 OFFSET ?)",
        (model, mode, config, model, mode, config, keep),
    )


def _prune_matrix(db: sqlite3.Connection, keep: int) -> None:
    db.execute(
        "DELETE FROM matrix WHERE run IN (SELECT DISTINCT run FROM matrix ORDER BY run DESC LIMIT -1 OFFSET ?)", (keep,)
    )


def _prune(db: sqlite3.Connection, model: str, mode: str, config: str, keep: int) -> None:
    old = db.execute(
        "SELECT run FROM runs WHERE model = ? AND mode = ? AND config = ? ORDER BY run DESC LIMIT -1 OFFSET ?",
        (model, mode, config, keep),
    ).fetchall()
    for (run,) in old:
        key = (model, mode, config, run)
        db.execute("DELETE FROM figures WHERE model = ? AND mode = ? AND config = ? AND run = ?", key)
        db.execute("DELETE FROM runs WHERE model = ? AND mode = ? AND config = ? AND run = ?", key)
