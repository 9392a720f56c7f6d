"""The history store: every run's benchmark figures, its stages' durations, its report's summary and
the matrix's rows, in one SQLite file.

``<output root>/tipc-history.sqlite`` (the ``test_tipc/output`` folder the results folders are in),
or the file the ``history`` setting names (``history_file``): one file for every model and mode, so a
CI cache or a shared filesystem keeps
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
uses the rollback journal. A store another process holds locked is waited for, saying so, up to
``TIPC_HISTORY_WAIT`` seconds (``lock_wait``); then the run goes on without it and says that too, and
does not wait for it again. A file that does not open as a store (another program's, a newer schema,
a bad disk) is left as it is, with a warning; a row or value in it that is not what tipc wrote (text
where a number belongs, NaN, ±Infinity) is skipped with one warning naming it: history only guides,
and a run never stops for it.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import math
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tipc.errors import ResultsError
from tipc.history.keys import is_key, legacy_key

HISTORY_FILE = "tipc-history.sqlite"
SCHEMA = 3  # 3: configs keyed by suite and path inside it (tipc.history.keys); 2's tables
OLDER = ("1", "2")  # schemas a first opening migrates (``_migrate``)
LOCK_WAIT = 30.0  # seconds to wait for another job's transaction (a merge, a prune): TIPC_HISTORY_WAIT
QUIET_WAIT = 2.0  # a lock held this long is a writer's ordinary transaction: waited for without a word
_GIVEN_UP: set[Path] = set()  # stores this process found locked beyond the bound: not waited for again

StageKey = tuple[str, int]  # (stage id, node rank): a stage of one run (stage ids repeat across nodes)
SeriesKey = tuple[str, int, str]  # a StageKey and a figure key (tipc.report.figures): one series of a config
DurationKey = tuple[str, str]  # (config key, stage id): a stage across runs, what the split balances by

# A year of a large matrix (80 configs × 40 figures × 365 nights: over a million figures) stays small:
# each series (model, mode, config, stage, node, figure) and each run is named once, with an integer
# id, and a figure is one row of three numbers, keyed by (run, series) without a rowid of its own.
_TABLES = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, model TEXT, mode TEXT, config TEXT, run TEXT,"
    " recorded REAL NOT NULL, UNIQUE (model, mode, run, config))",  # the order series and export read in
    "CREATE TABLE IF NOT EXISTS series (id INTEGER PRIMARY KEY, model TEXT, mode TEXT, config TEXT, stage TEXT,"
    " node INTEGER, figure TEXT, UNIQUE (model, mode, config, stage, node, figure))",
    "CREATE TABLE IF NOT EXISTS figures (run INTEGER NOT NULL, series INTEGER NOT NULL, value REAL NOT NULL,"
    " PRIMARY KEY (run, series)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS stages (mode TEXT, config TEXT, stage TEXT, duration REAL NOT NULL, peak_mb REAL,"
    " start REAL NOT NULL, PRIMARY KEY (mode, config, stage))",
    "CREATE TABLE IF NOT EXISTS reports (model TEXT, mode TEXT, config TEXT, run TEXT, summary TEXT NOT NULL,"
    " PRIMARY KEY (model, mode, config, run))",
    "CREATE TABLE IF NOT EXISTS matrix (run TEXT, config TEXT, mode TEXT, verdict TEXT NOT NULL,"
    " failures TEXT NOT NULL, causes TEXT NOT NULL, PRIMARY KEY (run, config, mode))",
)
# The first file format (schema 1): every figure a row naming its model, mode, config, run, stage and
# figure in full (a year of a large matrix was 465 MB). Read once, into the tables above, by the first
# tipc that opens such a file (``_migrate``).
_SCHEMA_1 = ("runs", "figures")


class HistoryError(ResultsError):
    """The file is not a history store this tipc reads; the message says why."""


Warn = Callable[[str], None]


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr)


def lock_wait(env: Mapping[str, str] = os.environ) -> float:
    """``TIPC_HISTORY_WAIT``: the seconds a run waits for a store another process holds locked."""
    text = env.get("TIPC_HISTORY_WAIT", "").strip()
    try:
        seconds = float(text) if text else LOCK_WAIT
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < math.inf:
        raise HistoryError("TIPC_HISTORY_WAIT", 0, f"{text!r}: expected a number of seconds, 0 or more")
    return seconds


def number(value: object) -> float | None:
    """A stored figure or duration as a float; None for anything else (text, NaN, ±Infinity, a bool)."""
    if type(value) in (int, float) and math.isfinite(value):  # type: ignore[arg-type]
        return float(value)  # type: ignore[arg-type]
    return None


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


# What a matrix row's verdict may be, worst first: a page's verdict is its worst row's.
VERDICTS = ("error", "failed", "incomplete", "passed", "empty", "not applicable")


@dataclass(frozen=True, slots=True)
class MatrixRow:
    """One config's line of a matrix page: what the next page compares it with."""

    config: str
    mode: str
    verdict: str
    failures: tuple[str, ...]
    causes: tuple[str, ...]  # failure cause signatures (tipc.metrics.causes)


def history_file(results: Path, model: str, mode: str, fallback: Path, given: Path | None = None) -> Path:
    """Where the history of ``model`` and ``mode`` lives: ``given`` (the ``history`` setting:
    ``--history``, ``TIPC_HISTORY``, ``tipc_history`` in pytest's ini, ``[tool.tipc]`` ``history``;
    ``tipc.session.settings.resolve_history``), else a plugin's choice (``pytest_tipc_history_store``),
    else the output root of ``results`` when they are its ``<model>/<mode>`` folder, else ``fallback``
    (results kept elsewhere: the report's own mode folder). Every reader and writer asks here."""
    from tipc.suites.registry import history_store  # the plugins' hook: loaded by whoever asks first

    if given is not None:
        return given
    chosen = history_store(results, model, mode)
    if chosen is not None:
        return chosen
    if (results.name, results.parent.name) == (mode, model):
        return results.parent.parent / HISTORY_FILE
    return fallback / HISTORY_FILE


class History:
    """One store file; every method is one transaction and leaves no connection open. ``warn``
    hears of rows skipped as bad and of waits for a lock (stderr without it)."""

    def __init__(self, path: Path, warn: Warn | None = None) -> None:
        self.path = path
        self._warn = warn or _to_stderr

    @contextmanager
    def _db(self, write: bool) -> Iterator[sqlite3.Connection]:
        if not write and not self.path.is_file():
            raise FileNotFoundError(self.path)
        if write:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with closing(sqlite3.connect(self.path, timeout=QUIET_WAIT, isolation_level=None)) as db:
                self._begin(db, write)
                if not write and _schema(db) in OLDER:  # migrated once: a write, by the first reader too
                    db.execute("ROLLBACK")
                    self._begin(db, write=True)
                try:
                    old = _schema(db) in OLDER
                    if old:
                        _migrate(db, _schema(db))
                    if write or old:
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

    def _begin(self, db: sqlite3.Connection, write: bool) -> None:
        """Begin a transaction; a lock held beyond ``QUIET_WAIT`` is waited for, saying so, up to
        ``lock_wait()``; past it, the store is given up for the rest of this process."""
        key = self.path.resolve()
        if key in _GIVEN_UP:
            raise HistoryError(str(self.path), 0, "locked by another process (given up earlier in this run)")
        begin = "BEGIN IMMEDIATE" if write else "BEGIN"
        try:
            db.execute("PRAGMA journal_mode=DELETE")  # no WAL: it needs shared memory NFS does not give
            db.execute(begin)
            if not write:
                db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # a reader's lock is taken here
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc):
                raise
        wait = lock_wait()
        self._warn(f"tipc: history {self.path} is locked by another process; waiting up to {wait:g} s "
                   "(TIPC_HISTORY_WAIT)")  # fmt: skip
        db.execute(f"PRAGMA busy_timeout = {int(wait * 1000)}")
        try:
            with contextlib.suppress(sqlite3.OperationalError):
                db.execute("ROLLBACK")
            db.execute("PRAGMA journal_mode=DELETE")
            db.execute(begin)
            if not write:
                db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc):
                raise
            _GIVEN_UP.add(key)
            self._warn(f"tipc: history {self.path} still locked after {wait:g} s: this run goes on without it "
                       "(nothing read from it, nothing recorded in it)")  # fmt: skip
            raise HistoryError(str(self.path), 0, f"still locked by another process after {wait:g} s") from None

    def _skipped(self, what: str, bad: Sequence[str]) -> None:
        """One warning for the rows of one read that were not what tipc writes, naming them."""
        if bad:
            shown = "; ".join(bad[:3]) + (f"; and {len(bad) - 3} more" if len(bad) > 3 else "")
            self._warn(f"tipc: history {self.path}: skipped {len(bad)} bad {what} row(s): {shown}")

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
        reports: Sequence[ReportSummary] = (),
    ) -> None:
        """Add (or replace) a run's figures and its report's summary (``reports``: with earlier ones
        being imported), and keep each stage's newest duration; all or nothing. Nothing is pruned:
        how long history is kept is the store's policy (``prune``), never a side effect of a run."""
        with self._db(write=True) as db:
            db.executemany(
                "INSERT OR REPLACE INTO reports VALUES (?, ?, ?, ?, ?)",
                [(model, mode, r.config, r.run, r.text) for r in reports],
            )
            now = time.time()
            for entry in run:
                (run_id,) = db.execute(
                    "INSERT INTO runs (model, mode, config, run, recorded) VALUES (?, ?, ?, ?, ?) ON CONFLICT"
                    " (model, mode, run, config) DO UPDATE SET recorded = excluded.recorded RETURNING id",
                    (model, mode, entry.config, entry.run, now),
                ).fetchone()
                db.execute("DELETE FROM figures WHERE run = ?", (run_id,))
                ids = _series_ids(db, model, mode, entry.config, entry.figures)
                db.executemany(
                    "INSERT INTO figures VALUES (?, ?, ?)", [(run_id, ids[k], v) for k, v in entry.figures.items()]
                )
            db.executemany(
                "INSERT INTO stages VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (mode, config, stage) DO UPDATE SET"
                " duration = excluded.duration, peak_mb = excluded.peak_mb, start = excluded.start"
                " WHERE excluded.start >= stages.start",
                [(mode, s.config, s.stage, s.duration, s.peak_mb, s.start) for s in stages],
            )
            _adopt(
                db, model, mode, {*(e.config for e in run), *(s.config for s in stages), *(r.config for r in reports)}
            )

    def series(self, model: str, mode: str) -> tuple[RunFigures, ...]:
        """Every recorded run of ``model`` and ``mode``, per config, oldest run first."""
        try:
            with self._db(write=False) as db:
                rows = db.execute(
                    "SELECT r.run, r.config, s.stage, s.node, s.figure, f.value FROM runs r"
                    " LEFT JOIN figures f ON f.run = r.id LEFT JOIN series s ON s.id = f.series"
                    " WHERE r.model = ? AND r.mode = ? ORDER BY r.run, r.config",
                    (model, mode),
                ).fetchall()
        except FileNotFoundError:
            return ()
        found: dict[tuple[str, str], dict[SeriesKey, float]] = {}
        bad: list[str] = []
        for run, config, stage, node, figure, value in rows:
            if not _all_text(run, config):
                bad.append(f"run {run!r:.40} config {config!r:.80}")
                continue
            figures = found.setdefault((run, config), {})
            if stage is None:  # a run without figures
                continue
            kept = number(value)
            if kept is None or type(node) is not int or not _all_text(stage, figure):
                bad.append(f"run {run} {stage!r:.80} {figure!r:.40} = {value!r:.40}")
                continue
            figures[(stage, node, figure)] = kept
        self._skipped("figure", bad)
        return tuple(RunFigures(run, config, figures) for (run, config), figures in found.items())

    def reports(self, model: str, mode: str, limit: int = -1) -> tuple[ReportSummary, ...]:
        """The report summaries of ``model`` and ``mode``, newest run first; the first ``limit`` (all: -1)."""
        try:
            with self._db(write=False) as db:
                if not _has(db, "reports"):
                    return ()
                rows = db.execute(
                    "SELECT run, config, summary FROM reports WHERE model = ? AND mode = ? ORDER BY run DESC, config"
                    " LIMIT ?",
                    (model, mode, limit),
                ).fetchall()
        except FileNotFoundError:
            return ()
        bad = [
            f"run {run!r:.40} config {config!r:.80}" for run, config, text in rows if not _all_text(run, config, text)
        ]
        self._skipped("report", bad)
        return tuple(ReportSummary(run, config, text) for run, config, text in rows if _all_text(run, config, text))

    def record_matrix(self, pages: Mapping[str, Sequence[MatrixRow]]) -> None:
        """Matrix pages' rows by run, replacing each run's earlier ones; all or nothing."""
        with self._db(write=True) as db:
            for run, rows in pages.items():
                db.execute("DELETE FROM matrix WHERE run = ?", (run,))
                db.executemany(
                    "INSERT INTO matrix VALUES (?, ?, ?, ?, ?, ?)",
                    [(run, r.config, r.mode, r.verdict, json.dumps(r.failures), json.dumps(r.causes)) for r in rows],
                )

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
        bad: list[str] = []
        for run, config, mode, verdict, failures, causes in rows:
            try:
                if not _all_text(run, config, mode, verdict):
                    raise ValueError("run, config, mode and verdict are not all text")
                row = MatrixRow(config, mode, verdict, _texts(failures), _texts(causes))
            except (TypeError, ValueError, RecursionError) as exc:  # not what record_matrix wrote
                bad.append(f"run {run!r:.40} config {config!r:.80} ({exc})")
                continue
            found.setdefault(str(run), []).append(row)
        self._skipped("matrix", bad)
        return [(run, tuple(entries)) for run, entries in found.items()]

    def measured(self, mode: str) -> dict[DurationKey, StageTime]:
        """The newest duration of every stage the store has for ``mode``."""
        try:
            with self._db(write=False) as db:
                rows = db.execute(
                    "SELECT config, stage, duration, peak_mb, start FROM stages WHERE mode = ?", (mode,)
                ).fetchall()
        except FileNotFoundError:
            return {}
        found: dict[DurationKey, StageTime] = {}
        bad: list[str] = []
        for config, stage, duration, peak_mb, start in rows:
            seconds, began, peak = number(duration), number(start), number(peak_mb)
            if seconds is None or began is None or not _all_text(config, stage):
                bad.append(f"{config!r:.80} {stage!r:.80} duration {duration!r:.40} start {start!r:.40}")
                continue
            found[(config, stage)] = StageTime(config, stage, seconds, peak, began)
        self._skipped("duration", bad)
        return found

    def prune(self, keep: int | None = None, model: str | None = None, mode: str | None = None,
              retention: Retention | None = None) -> int:  # fmt: skip
        """Keep each config's last ``keep`` runs, or (without ``keep``) what ``retention`` keeps (the
        default policy: every night of the last 90 days, then one a week); of ``model``/``mode`` only,
        when given. The file is compacted after (its space returned). The number of runs removed."""
        policy = retention or Retention()
        with self._db(write=True) as db:
            before = db.execute("SELECT count(*) FROM runs").fetchone()[0]
            for table in ("runs", "reports"):
                for m, md, config in db.execute(f"SELECT DISTINCT model, mode, config FROM {table}").fetchall():
                    if model in (None, m) and mode in (None, md):
                        where = "model = ? AND mode = ? AND config = ?"
                        found = db.execute(f"SELECT run FROM {table} WHERE {where}", (m, md, config))
                        runs = [r for (r,) in found if isinstance(r, str)]
                        gone = _beyond(runs, keep) if keep is not None else policy.dropped(runs)
                        db.executemany(
                            f"DELETE FROM {table} WHERE {where} AND run = ?", [(m, md, config, r) for r in gone]
                        )
            if model is None and mode is None:
                pages = [r for (r,) in db.execute("SELECT DISTINCT run FROM matrix") if isinstance(r, str)]
                gone = _beyond(pages, keep) if keep is not None else policy.dropped(pages)
                db.executemany("DELETE FROM matrix WHERE run = ?", [(r,) for r in gone])
            db.execute("DELETE FROM figures WHERE run NOT IN (SELECT id FROM runs)")
            db.execute("DELETE FROM series WHERE id NOT IN (SELECT DISTINCT series FROM figures)")
            removed = int(before - db.execute("SELECT count(*) FROM runs").fetchone()[0])
        try:
            with closing(sqlite3.connect(self.path, timeout=lock_wait(), isolation_level=None)) as db:
                db.execute("VACUUM")  # pages freed by the deletes go back to the filesystem
        except sqlite3.Error as exc:  # pruned all the same; the file shrinks at the next prune
            self._warn(f"tipc: history {self.path}: pruned, but not compacted ({exc})")
        return removed

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

    def _export_figures(self) -> Iterator[dict[str, Any]]:
        """Every run's figures, streamed in (model, mode, run, config) order: the series' names are read
        once, then each run's figures as one row that SQLite gathers (the finite ones: the others, and
        series that are not what tipc writes, are named in one warning)."""
        try:
            with self._db(write=False) as db:
                names: dict[int, tuple[str, int, str]] = {}
                bad: list[str] = []
                for series, stage, node, figure in db.execute("SELECT id, stage, node, figure FROM series"):
                    if type(node) is int and _all_text(stage, figure):
                        names[series] = (stage, node, figure)
                    else:
                        bad.append(f"series {stage!r:.80} {node!r:.10} {figure!r:.40}")
                bad += [f"run {r!r:.40} {st!r:.80} {fi!r:.40} = {v!r:.40}" for r, st, fi, v in db.execute(
                    "SELECT r.run, s.stage, s.figure, f.value FROM figures f JOIN runs r ON r.id = f.run"
                    f" JOIN series s ON s.id = f.series WHERE NOT ({_FINITE}) LIMIT 100")]  # fmt: skip
                self._skipped("figure", bad)
                rows = db.execute(
                    "SELECT r.model, r.mode, r.run, r.config, (SELECT json_group_array(json_array(f.series, f.value))"
                    f" FROM figures f WHERE f.run = r.id AND {_FINITE}) FROM runs r"
                    " ORDER BY r.model, r.mode, r.run, r.config"
                )
                for model, mode, run, config, figures in rows:
                    yield {"kind": "figures", "model": model, "mode": mode, "run": run, "config": config,
                           "stages": _stages(json.loads(figures), names)}  # fmt: skip
        except FileNotFoundError:
            return

    def export(self) -> Iterator[dict[str, Any]]:
        """Every run as one JSON-ready object (``tipc history export``), oldest first per model and mode:
        its figures (``"kind": "figures"``), then the report summaries (``"report"``, the summary as
        its report wrote it) and the matrix pages' rows (``"matrix"``)."""
        yield from self._export_figures()
        for model, mode in dict.fromkeys((m, md) for m, md, config, *_ in self.summaries() if (md, config) != ("", "")):
            for report in reversed(self.reports(model, mode)):
                try:
                    summary = json.loads(report.text)
                except (ValueError, RecursionError) as exc:
                    self._skipped("report", [f"run {report.run} config {report.config} ({exc})"])
                    continue
                yield {"kind": "report", "model": model, "mode": mode, "run": report.run, "config": report.config,
                       "summary": summary}  # fmt: skip
        for run, rows in reversed(self.matrix()):
            yield {"kind": "matrix", "run": run, "rows": [
                {"config": r.config, "mode": r.mode, "verdict": r.verdict, "failures": list(r.failures),
                 "causes": list(r.causes)} for r in rows]}  # fmt: skip


def _texts(stored: object) -> tuple[str, ...]:
    """A matrix row's JSON list of texts; ``ValueError`` for anything else."""
    items = json.loads(stored) if isinstance(stored, str) else None
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise ValueError(f"expected a JSON list of texts, found {stored!r:.60}")
    return tuple(items)


# A stored figure tipc reads: a finite number (±Infinity is beyond the largest double; NaN is stored
# as NULL, which the table refuses).
_FINITE = "typeof(f.value) IN ('integer', 'real') AND abs(f.value) <= 1.7976931348623157e308"


def _stages(rows: Sequence[list[Any]], names: Mapping[int, tuple[str, int, str]]) -> list[dict[str, Any]]:
    """One run's figures ([series id, value] each) as export's ``stages``."""
    stages: dict[tuple[str, int], dict[str, float]] = {}
    for series, value in rows:
        if series in names:
            stage, node, figure = names[series]
            stages.setdefault((stage, node), {})[figure] = float(value)
    return [{"id": s, "node": n, "figures": f} for (s, n), f in sorted(stages.items())]


def _schema(db: sqlite3.Connection) -> str | None:
    """The file's schema as its ``meta`` table says; None for a new (empty) file."""
    if not _has(db, "meta"):
        return None
    row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    return None if row is None else str(row[0])


def _migrate(db: sqlite3.Connection, schema: str | None) -> None:
    """An older file into this schema, inside the caller's write transaction. Schema 1: its runs and
    figures copied into the new tables (a value SQLite cannot keep as a number stays, for the readers
    to skip), the old tables dropped; the others are the same in both. Schema 2 has this schema's
    tables, its configs keyed by their last two path parts: each is adopted under its suite key by the
    first run that records it (``_adopt``: only a run knows a config's suite)."""
    if schema == "1":
        _tables_of_schema_1(db)
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA),))


def _tables_of_schema_1(db: sqlite3.Connection) -> None:
    for table in _SCHEMA_1:
        db.execute(f"ALTER TABLE {table} RENAME TO old_{table}")
    for table in _TABLES:
        db.execute(table)
    db.execute("INSERT INTO runs (model, mode, config, run, recorded) SELECT model, mode, config, run, recorded"
               " FROM old_runs")  # fmt: skip
    db.execute("INSERT OR IGNORE INTO series (model, mode, config, stage, node, figure)"
               " SELECT DISTINCT model, mode, config, stage, node, figure FROM old_figures")  # fmt: skip
    db.execute(
        "INSERT OR REPLACE INTO figures SELECT r.id, s.id, f.value FROM old_figures f"
        " JOIN runs r USING (model, mode, config, run) JOIN series s USING (model, mode, config, stage, node, figure)"
    )
    for table in _SCHEMA_1:
        db.execute(f"DROP TABLE old_{table}")


def _adopt(db: sqlite3.Connection, model: str, mode: str, keys: Iterable[str]) -> None:
    """Rows an older store (or an older file read into it) keyed by a config's last two path parts
    (``legacy_key``) take the config's suite key: its figures, durations and report summaries go on
    under it. Where the key has the row already (the same run, stage or series under both), the new
    one stays and the older is dropped; a series stays, for the figures of the runs adopted."""
    renames = [(key, old) for key in keys if is_key(key) and (old := legacy_key(key)) != key]
    of_model = [(key, model, mode, old) for key, old in renames]
    for table in ("runs", "series", "reports"):
        db.executemany(f"UPDATE OR IGNORE {table} SET config = ? WHERE model = ? AND mode = ? AND config = ?", of_model)
    db.executemany("UPDATE OR IGNORE stages SET config = ? WHERE mode = ? AND config = ?",
                   [(key, mode, old) for key, old in renames])  # fmt: skip
    left = [(model, mode, old) for _, old in renames]
    db.executemany("DELETE FROM figures WHERE run IN (SELECT id FROM runs WHERE model = ? AND mode = ? AND config = ?)",
                   left)  # fmt: skip
    for table in ("runs", "reports"):
        db.executemany(f"DELETE FROM {table} WHERE model = ? AND mode = ? AND config = ?", left)
    db.executemany("DELETE FROM stages WHERE mode = ? AND config = ?", [(mode, old) for _, old in renames])


def _series_ids(
    db: sqlite3.Connection, model: str, mode: str, config: str, figures: Mapping[SeriesKey, float]
) -> dict[SeriesKey, int]:
    """The id of each series of ``figures``, new ones added."""
    db.executemany(
        "INSERT OR IGNORE INTO series (model, mode, config, stage, node, figure) VALUES (?, ?, ?, ?, ?, ?)",
        [(model, mode, config, *key) for key in figures],
    )
    known = db.execute(
        "SELECT stage, node, figure, id FROM series WHERE model = ? AND mode = ? AND config = ?", (model, mode, config)
    )
    return {(stage, node, figure): series for stage, node, figure, series in known}


def _all_text(*values: object) -> bool:
    return all(isinstance(v, str) for v in values)


def _has(db: sqlite3.Connection, table: str) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone() is not None


def _beyond(runs: Sequence[str], keep: int) -> list[str]:
    """The runs beyond the newest ``keep``."""
    return sorted(runs, reverse=True)[keep:]


@dataclass(frozen=True, slots=True)
class Retention:
    """How long the store keeps a config's nights: every night of the last ``daily_days`` days (counted
    back from its newest night), then the newest night of each ISO week (``weekly``; none without it).
    A night is dated by its run id (``20261201T013000Z-…``); one whose id names no date is kept."""

    daily_days: int = 90
    weekly: bool = True

    def dropped(self, runs: Sequence[str]) -> list[str]:
        dated = {r: d for r in runs if (d := run_date(r)) is not None}
        if not dated:
            return []
        cutoff = max(dated.values()) - datetime.timedelta(days=self.daily_days)
        weeks: dict[tuple[int, int], str] = {}
        for run, day in sorted(dated.items()):
            if day < cutoff:
                weeks[day.isocalendar()[:2]] = run  # the newest of its week wins
        kept = set(weeks.values()) if self.weekly else set()
        return [r for r, day in dated.items() if day < cutoff and r not in kept]


def run_date(run: str) -> datetime.date | None:
    """The day a run id (or a report's start time) names: its first eight digits."""
    try:
        return datetime.datetime.strptime(run[:8], "%Y%m%d").date()
    except ValueError:
        return None
