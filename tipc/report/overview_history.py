"""What the matrix report remembers between runs: a small ``summary.json`` per run, read back by the next.

Each config's comparison is with its latest earlier run that covered it, by run id (ids sort by
start time): the previous night, or the last night the config was in the matrix. Only a few
earlier runs are read, newest first, so that a year of nights costs what a week does. A summary
that does not read is skipped with a warning naming it: history never stops a report.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

from tipc.files import read
from tipc.report.overview import VERDICTS, Earlier, HistoryKey, OverviewRow
from tipc.results.folder import Warn

MATRIX = "matrix"  # <report root>/matrix/<run id>/: the matrix pages and their summaries
SUMMARY = "summary.json"
SCHEMA = 1
LOOK_BACK = 30  # earlier runs read at most, newest first
MAX_SUMMARY_BYTES = 64 << 20  # a summary holds a line per stage


def summary_json(run_id: str, rows: Sequence[OverviewRow]) -> str:
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


def read_summary(path: Path) -> tuple[str, dict[HistoryKey, Earlier]]:
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
        path = d / SUMMARY
        if read >= LOOK_BACK:
            return
        if d.name >= current or not path.is_file():
            continue
        read += 1
        try:
            run_id, entries = read_summary(path)
        except (OSError, ValueError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            warn(f"tipc: skipped matrix history entry {path}: {exc}")
            continue
        if run_id < current:
            yield run_id, entries


def cause_history(matrix_dir: Path, current: str, warn: Warn) -> list[tuple[str, frozenset[str]]]:
    """The signatures of the failures of each run before ``current``, oldest first: what tells a
    cause new or recurring since when (``tipc.metrics.causes.group``). The one reader of that history."""
    runs = [(run_id, frozenset(c for e in entries.values() for c in e.causes)) for run_id, entries in
            _summaries(matrix_dir, current, warn)]  # fmt: skip
    return runs[::-1]


def earlier_runs(
    matrix_dir: Path, current: str, wanted: Collection[HistoryKey], warn: Warn
) -> dict[HistoryKey, Earlier]:
    """For each wanted (config, mode), its entry in the latest run before ``current`` that has it."""
    found: dict[HistoryKey, Earlier] = {}
    for _, entries in _summaries(matrix_dir, current, warn):
        if len(found) == len(wanted):
            break
        for key, entry in entries.items():
            if key in wanted:
                found.setdefault(key, entry)
    return found
