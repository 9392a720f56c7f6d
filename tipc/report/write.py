"""``write_report``: results directories → ``<out>/<model>/<mode>/<timestamp>/index.html``.

Layout of the reports tree::

    <out_root>/<model>/<mode>/
        20261130T023448Z/index.html    one directory per run (UTC start time, sortable)
        20261130T023448Z/summary.json  what later runs compare against
        latest -> 20261130T023448Z     relative symlink, replaced atomically
        latest.html                    redirect page: works where symlinks do not

Both pointers are always written (the symlink only where the filesystem allows it), so
``latest/index.html`` and ``latest.html`` are stable addresses to bookmark.
Re-rendering the same run overwrites its directory; history compares against the newest
*older* directory.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from tipc.errors import ResultsError
from tipc.results.folder import RECORDS, Warn, has_results
from tipc.report.build import Anchors, all_records, anchors_for, build_report, format_time, overall, run_span
from tipc.report.compare import (DEFAULT_THRESHOLD, SUMMARY_FILE, RunSummary, compare as compare_runs,
                                 previous_in_history, read_summary, status_counts, summarize)
from tipc.report.load import NodeRun, load_runs
from tipc.report.logtail import file_link
from tipc.report.model import Comparison, HistoryEntry
from tipc.report.render import render, render_redirect

INDEX = "index.html"
LATEST = "latest"
HISTORY_LINKS = 12
_UNSAFE_DIR = re.compile(r"[^A-Za-z0-9_.+-]+")


@dataclass(frozen=True, slots=True)
class Baseline:
    summary: RunSummary
    label: str
    index: Path | None  # the baseline's report page, when it has one


def run_timestamp(start: float) -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(start or time.time()))


def _dir_name(text: str) -> str:
    return _UNSAFE_DIR.sub("_", text).strip("._") or "unknown"


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _baseline_from(path: Path) -> Baseline:
    """A report dir (has summary.json), a mode dir (has latest/), or a results dir."""
    path = Path(path)
    if (path / LATEST / SUMMARY_FILE).is_file():
        path = path / LATEST
    if (path / SUMMARY_FILE).is_file():
        summary = read_summary(path / SUMMARY_FILE)
        index = path / INDEX
        return Baseline(summary, f"{summary.timestamp or path.name}", index if index.is_file() else None)
    if has_results(path):
        runs = load_runs([path])
        ts = run_timestamp(run_span(runs)[0])
        return Baseline(summarize(runs[0].info.model, runs[0].info.mode, ts, all_records(runs)), f"{ts} ({path})", None)
    raise ResultsError(str(path), 0, f"cannot compare with it: expected a report directory holding {SUMMARY_FILE} "
                                    f"or a results directory holding {RECORDS}")


def _comparison(baseline: Baseline | None, current: RunSummary, anchors: Anchors, report_dir: Path,
                threshold: float) -> Comparison | None:
    if baseline is None:
        return None
    href = file_link(baseline.index, report_dir) if baseline.index else ""
    return compare_runs(baseline.summary, current, anchors.stages, against=baseline.label, against_href=href,
                        threshold=threshold)


def _history(mode_dir: Path, current: str) -> tuple[HistoryEntry, ...]:
    entries = []
    for d in sorted((d for d in mode_dir.iterdir() if d.is_dir() and not d.is_symlink() and d.name != current),
                    reverse=True):
        try:
            summary = read_summary(d / SUMMARY_FILE)
        except (OSError, ResultsError):
            continue
        counts = status_counts(s.status for s in summary.stages)
        entries.append(HistoryEntry(d.name, f"../{d.name}/{INDEX}", overall(counts), tuple(counts.items())))
        if len(entries) == HISTORY_LINKS:
            break
    return tuple(entries)


def update_latest(mode_dir: Path, timestamp: str, title: str) -> None:
    link = mode_dir / LATEST
    tmp = mode_dir / f".{LATEST}.{os.getpid()}.tmp"
    try:
        if tmp.is_symlink():
            tmp.unlink()
        tmp.symlink_to(timestamp, target_is_directory=True)
        os.replace(tmp, link)
    except OSError:
        pass  # no symlinks here (some network/Windows filesystems): latest.html still points the way
    _write_atomic(mode_dir / f"{LATEST}.html", render_redirect(f"{timestamp}/{INDEX}", title))


def write_report(results_dirs: Sequence[Path], out_root: Path, compare: Path | None = None, *,
                 history: bool = True, threshold: float = DEFAULT_THRESHOLD, warn: Warn | None = None) -> Path:
    """Render one run (one results dir per node) and return the path of its ``index.html``.

    ``compare`` is a previous report or results directory; without it (and with
    ``history``) the newest older report of the same model/mode is the baseline.
    """
    runs: tuple[NodeRun, ...] = load_runs([Path(p) for p in results_dirs], warn)
    info = runs[0].info
    records = all_records(runs)
    timestamp = run_timestamp(run_span(runs)[0])
    mode_dir = Path(out_root) / _dir_name(info.model) / _dir_name(info.mode)
    report_dir = mode_dir / timestamp
    report_dir.mkdir(parents=True, exist_ok=True)

    summary = summarize(info.model, info.mode, timestamp, records)
    anchors = anchors_for(records)
    if compare is not None:
        baseline = _baseline_from(Path(compare))
    else:
        previous = previous_in_history(mode_dir, timestamp) if history else None
        baseline = _baseline_from(previous) if previous else None
    model = build_report(
        runs, report_dir, anchors,
        comparison=_comparison(baseline, summary, anchors, report_dir, threshold),
        history=_history(mode_dir, timestamp) if history else (),
        generated=format_time(time.time()),
    )
    index = report_dir / INDEX
    _write_atomic(index, render(model))
    _write_atomic(report_dir / SUMMARY_FILE, summary.to_json())
    update_latest(mode_dir, timestamp, model.title)
    return index
