"""A report's part of the history: the figures and the summary of the run it renders, into the
history store (``tipc.history.store``), and the trend series and earlier summaries back.

A run gives a ``RunFigures`` per config (configs of one model share a results folder and a report,
not a history). Only stages that passed in the run itself give figures (a failed stage's numbers
are no baseline, a carried record is an earlier run's); its stages that ran give the durations the
next night's split balances by. The store keeps every run (``tipc history prune`` applies its
retention policy); a report reads each config's last ``keep``. Re-rendering a run replaces its figures.

Before the store, the history was ``trends.jsonl`` in the report's mode folder, one JSON line per
run and config::

    {"schema": 1, "run": "20261201T013000Z-5f3a9c1e", "config": "tinyrec/train_….txt",
     "stages": [{"id": "…::infer[…-bs1]", "node": 0, "figures": {"inference_ms": 4.2, …}}]}

The first report of a model and mode the store has nothing of reads that file into it (a line
that does not read is skipped with a warning naming the file and line); the file is left as it was.
So too the ``summary.json`` beside each earlier report (``tipc.report.compare.read_history``): read
into the store by the first report that finds the store without summaries of its model and mode.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path

from tipc.files import read
from tipc.history.keys import config_key
from tipc.history.store import History, HistoryError, ReportSummary, RunFigures, SeriesKey, StageTime
from tipc.report.compare import PastRun, _field, read_history, stored_history
from tipc.report.figures import stage_figures
from tipc.results.folder import Warn
from tipc.results.records import StageRecord, Status

TREND_FILE = "trends.jsonl"
TREND_SCHEMA = 1
MAX_LINE_BYTES = 16 << 20  # a run's line holds a few figures per stage
MAX_HISTORY_BYTES = 256 << 20


def from_json(text: str) -> RunFigures:
    """A ``trends.jsonl`` line; ``ValueError`` saying what is wrong with it."""
    d = _field(json.loads(text), "line", dict)
    schema = _field(d.get("schema"), "schema", int)
    if schema != TREND_SCHEMA:
        raise ValueError(f"schema {schema}, this tipc reads schema {TREND_SCHEMA}")
    figures: dict[SeriesKey, float] = {}
    for item in _field(d.get("stages"), "stages", list):
        s = _field(item, "stage", dict)
        stage, node = _field(s.get("id"), "stage id", str), _field(s.get("node"), "stage node", int)
        for key, value in _field(s.get("figures"), "stage figures", dict).items():
            if type(value) not in (int, float) or not math.isfinite(value):  # a bool is no figure either
                raise ValueError(f"figure {key} is {value!r:.60}, expected a finite number")
            figures[(stage, node, key)] = float(value)
    return RunFigures(_field(d.get("run"), "run", str), config_key(_field(d.get("config"), "config", str)), figures)


def run_figures(run: str, records: Iterable[StageRecord]) -> tuple[RunFigures, ...]:
    """A run's figures, one per config that wrote ``records`` (the run's own: not carried over): the
    figures of the stages that passed. Configs that share a results folder keep apart histories;
    a config is its ``config_key``, wherever each shard had it checked out. A config none of whose
    stages passed has a line without figures: its history is still shown (``record_run`` does not
    store such a line)."""
    per_config: dict[str, dict[SeriesKey, float]] = {}
    for r in records:
        figures = per_config.setdefault(config_key(r.config), {})
        if r.status is Status.PASSED:
            figures.update(
                {(r.id, r.node_rank, key): value for key, value in stage_figures(r).items() if math.isfinite(value)}
            )
    return tuple(RunFigures(run, config, figures) for config, figures in per_config.items())


def stage_times(records: Iterable[StageRecord]) -> tuple[StageTime, ...]:
    """What the run's own stages took: a blocked or skipped stage measured nothing."""
    return tuple(
        StageTime(config_key(r.config), r.id, r.duration, r.peak_rss_mb, r.start)
        for r in records
        if r.status.ran and r.duration > 0
    )


def read_legacy(path: Path, warn: Warn) -> tuple[RunFigures, ...]:
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


def bounded(entries: Iterable[RunFigures], keep: int) -> tuple[RunFigures, ...]:
    """The last ``keep`` runs of each config, oldest first; a later entry of a (run, config) wins."""
    latest = {(e.run, e.config): e for e in entries}
    per_config: dict[str, list[RunFigures]] = {}
    for e in sorted(latest.values(), key=lambda e: e.run):
        per_config.setdefault(e.config, []).append(e)
    return tuple(sorted((e for runs in per_config.values() for e in runs[-keep:]), key=lambda e: e.run))


def past_reports(
    store: Path, mode_dir: Path, model: str, mode: str, current: str, warn: Warn
) -> tuple[tuple[PastRun, ...], tuple[PastRun, ...]]:
    """The earlier reports of ``model`` and ``mode``, newest first, and those of them to import:
    the store's (none to import), else (a store without any yet) the ``summary.json`` files beside
    the reports in ``mode_dir`` (all of them)."""
    try:
        stored = History(store, warn).reports(model, mode)
    except (HistoryError, OSError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        warn(f"tipc: report history {store} not read ({reason}); no earlier run to compare with")
        return (), ()
    if not stored:
        found = read_history(mode_dir, current, warn)
        return found, found
    return stored_history(((r.run, r.text) for r in stored), mode_dir, current, warn), ()


def as_stored(past: Iterable[PastRun]) -> tuple[ReportSummary, ...]:
    return tuple(
        ReportSummary(p.summary.order or p.dir.name, config_key(p.summary.config) if p.summary.config else "",
                      p.summary.to_json())
        for p in past
    )  # fmt: skip


def record_run(
    store: Path,
    legacy: Path,
    model: str,
    mode: str,
    run: Sequence[RunFigures],
    stages: Sequence[StageTime],
    keep: int,
    warn: Warn,
    *,
    write: bool = True,
    reports: Sequence[ReportSummary] = (),
) -> tuple[RunFigures, ...]:
    """Add (or replace) a run in the store, with ``reports`` (its report's summary, and the earlier
    ones read from report folders once); return the model and mode's figure history with it.
    ``write=False``: the history as it would be, the store left as it is. ``legacy``: a
    ``trends.jsonl`` to read into the store when it has nothing of this model and mode yet."""
    history = History(store, warn)
    try:
        earlier = history.series(model, mode)
        imported = () if earlier else read_legacy(legacy, warn)
        if write:
            # A run without figures (nothing passed) adds no history; the report still shows the config's.
            history.record_run(model, mode, [*imported, *(e for e in run if e.figures)], stages, reports)
            return bounded(history.series(model, mode), keep)
    except (HistoryError, OSError) as exc:  # left as it is: never written over
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        warn(f"tipc: trend history {store} not read ({reason}); trends judge this run alone")
        return tuple(run)
    return bounded([*earlier, *imported, *run], keep)
