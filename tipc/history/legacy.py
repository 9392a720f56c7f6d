"""History from before the history store, read once, here, and migrated into it by the first run
that finds the store without that history (the caller records what this module reads).

Three older formats, each left as it was on disk:

- ``trends.jsonl`` in a report's mode folder: one JSON line per run and config, the figures::

    {"schema": 1, "run": "20261201T013000Z-5f3a9c1e", "config": "tinyrec/train_….txt",
     "stages": [{"id": "…::infer[…-bs1]", "node": 0, "figures": {"inference_ms": 4.2, …}}]}

- ``summary.json`` beside each earlier report (``tipc.history.summaries``): what later reports
  compared with;
- ``matrix.json`` beside each matrix page (``summary.json`` before December 2026): each config's
  verdict, failing stages and failure causes.

No tipc writes them any more: reports keep only their pages, the store keeps the rest.

A line or file that does not read is skipped with a warning naming it: history never stops a run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tipc.errors import ResultsError
from tipc.files import read
from tipc.history.keys import legacy_key
from tipc.history.store import VERDICTS, MatrixRow, RunFigures, SeriesKey
from tipc.history.summaries import PastRun, RunSummary, field
from tipc.results.folder import Warn

TREND_FILE = "trends.jsonl"
TREND_SCHEMA = 1
MAX_LINE_BYTES = 16 << 20  # a run's line holds a few figures per stage
MAX_HISTORY_BYTES = 256 << 20
SUMMARY_FILE = "summary.json"
MAX_SUMMARY_BYTES = 64 << 20  # a summary holds a line per stage
PAGE_ROWS = "matrix.json"
OLD_PAGE_ROWS = "summary.json"  # what pages written before December 2026 call it
PAGE_SCHEMA = 1
LOOK_BACK = 30  # earlier matrix pages read at most, newest first
MAX_PAGE_BYTES = 64 << 20  # a matrix page's rows: a line per config


def from_json(text: str) -> RunFigures:
    """A ``trends.jsonl`` line; ``ValueError`` saying what is wrong with it."""
    d = field(json.loads(text), "line", dict)
    schema = field(d.get("schema"), "schema", int)
    if schema != TREND_SCHEMA:
        raise ValueError(f"schema {schema}, this tipc reads schema {TREND_SCHEMA}")
    figures: dict[SeriesKey, float] = {}
    for item in field(d.get("stages"), "stages", list):
        s = field(item, "stage", dict)
        stage, node = field(s.get("id"), "stage id", str), field(s.get("node"), "stage node", int)
        for key, value in field(s.get("figures"), "stage figures", dict).items():
            if type(value) not in (int, float) or not math.isfinite(value):  # a bool is no figure either
                raise ValueError(f"figure {key} is {value!r:.60}, expected a finite number")
            figures[(stage, node, key)] = float(value)
    return RunFigures(field(d.get("run"), "run", str), legacy_key(field(d.get("config"), "config", str)), figures)


def read_trends(path: Path, warn: Warn) -> tuple[RunFigures, ...]:
    """The lines of a ``trends.jsonl`` that read, oldest run first."""
    found = []
    try:
        for number, raw in read.numbered_lines(path, MAX_LINE_BYTES, MAX_HISTORY_BYTES):
            if raw is None:
                warn(f"tipc: skipped trend history line {path}:{number}: longer than {MAX_LINE_BYTES} bytes")
                continue
            if not raw.strip():
                continue
            try:
                found.append(from_json(raw.decode("utf-8")))
            except (ValueError, OverflowError, RecursionError) as exc:  # UnicodeDecodeError, JSONDecodeError too
                warn(f"tipc: skipped trend history line {path}:{number}: {exc}")
    except FileNotFoundError:
        return ()
    except OSError as exc:  # a FIFO, a device, too large: no history from it
        warn(f"tipc: trend history {path} not read ({exc.strerror or exc})")
        return ()
    return tuple(sorted(found, key=lambda e: e.run))


def read_summary(path: Path) -> RunSummary:
    """A ``summary.json``; ``ResultsError`` names it and says why it is not one."""
    try:
        text = read.read_bytes(path, MAX_SUMMARY_BYTES).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ResultsError(
            str(path), 0, f"not a tipc report summary: not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    except OSError as exc:
        raise ResultsError(str(path), 0, f"cannot be read ({exc.strerror or exc})") from None
    return RunSummary.from_json(text, str(path))


def read_summaries(mode_dir: Path, current: str, warn: Warn) -> tuple[PastRun, ...]:
    """Every report directory of ``mode_dir`` but ``current`` whose summary reads, newest run first:
    the history of reports from before the history store, read into it once.

    A directory without a summary is skipped quietly (a report being written, or not a report);
    one whose summary does not read is skipped with a warning naming the file.
    """
    try:
        dirs = sorted(d for d in mode_dir.iterdir() if d.name != current and not d.is_symlink() and d.is_dir())
    except OSError:
        return ()  # no history yet (or none we may list): nothing to compare with
    found = []
    for d in dirs:
        path = d / SUMMARY_FILE
        if not (path.exists() or path.is_symlink()):
            continue
        try:
            found.append(PastRun(d, read_summary(path)))
        except ResultsError as exc:
            warn(f"tipc: skipped report history entry {exc}")
    return tuple(sorted(found, key=lambda p: (p.summary.order, p.dir.name), reverse=True))


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} is {value!r:.60}, expected text")
    return value


def read_page_rows(path: Path) -> tuple[str, tuple[MatrixRow, ...]]:
    """(run id, each config's row); ``ValueError`` (or ``OSError``) says why it is not one."""
    data = read.json_of(read.read_bytes(path, MAX_PAGE_BYTES))
    if not isinstance(data, dict) or data.get("schema") != PAGE_SCHEMA or not isinstance(data.get("rows"), list):
        raise ValueError(f"expected a matrix summary of schema {PAGE_SCHEMA} with rows")
    run_id = _text(data.get("run_id"), "run_id")
    rows = []
    for row in data["rows"]:
        if not isinstance(row, dict) or not isinstance(row.get("failures"), list):
            raise ValueError(f"row {row!r:.60} is not an object with failures")
        verdict = _text(row.get("verdict"), "verdict")
        if verdict not in VERDICTS:
            raise ValueError(f"verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
        causes = row.get("causes", [])  # summaries from before causes were kept have none
        if not isinstance(causes, list):
            raise ValueError(f"causes {causes!r:.60} is not a list")
        rows.append(
            MatrixRow(
                _text(row.get("config"), "config"),
                _text(row.get("mode"), "mode"),
                verdict,
                tuple(_text(f, "failure") for f in row["failures"]),
                tuple(_text(c, "cause") for c in causes),
            )
        )
    return run_id, tuple(rows)


def read_pages(matrix_dir: Path, current: str, warn: Warn) -> Iterator[tuple[str, tuple[MatrixRow, ...]]]:
    """The rows of the matrix pages under ``matrix_dir`` before ``current``, newest first, at most
    ``LOOK_BACK`` read; a bad one skipped with ``warn``."""
    try:
        dirs = sorted((d for d in matrix_dir.iterdir() if d.is_dir() and not d.is_symlink()), reverse=True)
    except OSError:
        return  # no matrix history yet
    seen = 0
    for d in dirs:
        path = next((d / name for name in (PAGE_ROWS, OLD_PAGE_ROWS) if (d / name).is_file()), None)
        if seen >= LOOK_BACK:
            return
        if d.name >= current or path is None:
            continue
        seen += 1
        try:
            run_id, rows = read_page_rows(path)
        except (OSError, ValueError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            warn(f"tipc: skipped matrix history entry {path}: {exc}")
            continue
        if run_id < current:
            yield run_id, rows
