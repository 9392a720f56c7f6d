"""A report's part of the history: the figures and the summary of the run it renders, into the
history store (``tipc.history.store``), and the trend series and earlier summaries back.

A run gives a ``RunFigures`` per config (configs of one model share a results folder and a report,
not a history). Only stages that passed in the run itself give figures (a failed stage's numbers
are no baseline, a carried record is an earlier run's); its stages that ran give the durations the
next night's split balances by. The store keeps every run (``tipc history prune`` applies its
retention policy); a report reads each config's last ``keep``. Re-rendering a run replaces its figures.

A report keeps no file of its own but its pages: ``tipc report --compare`` finds an earlier run's
summary here too (``summary_of``). The history from before the store (``trends.jsonl``, the
``summary.json`` beside each earlier report) is read once (``tipc.history.legacy``) by the first
report that finds the store without that model and mode's figures or summaries, and recorded with
its run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from tipc.history.keys import config_key, is_key, legacy_key
from tipc.history.legacy import read_summaries, read_trends
from tipc.history.store import History, HistoryError, ReportSummary, RunFigures, StageTime
from tipc.history.summaries import PastRun, RunSummary, stored_history
from tipc.results.folder import Warn
from tipc.results.records import StageRecord


def stage_times(records: Iterable[StageRecord]) -> tuple[StageTime, ...]:
    """What the run's own stages took: a blocked or skipped stage measured nothing."""
    return tuple(
        StageTime(config_key(r.config), r.id, r.duration, r.peak_rss_mb, r.start)
        for r in records
        if r.status.ran and r.duration > 0
    )


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
        found = read_summaries(mode_dir, current, warn)
        return found, found
    return stored_history(((r.run, r.config, r.text) for r in stored), mode_dir, current, warn), ()


def summary_of(stores: Iterable[Path], model: str, mode: str, run: str, warn: Warn) -> RunSummary | None:
    """The summary of ``run`` (its order: the run id, else the start time) of ``model`` and ``mode`` in the
    first of ``stores`` that has one; None when none has. One that does not read is an error: the user
    named this run (``tipc report --compare``)."""
    for store in dict.fromkeys(stores):
        try:
            found = next((r for r in History(store, warn).reports(model, mode) if r.run == run), None)
        except (HistoryError, OSError) as exc:
            warn(f"tipc: report history {store} not read ({exc})")
            continue
        if found is not None:
            return RunSummary.from_json(found.text, f"{store} (run {run})")
    return None


def as_stored(past: Iterable[PastRun]) -> tuple[ReportSummary, ...]:
    """Summaries as the store keeps them: by config key; one an older tipc wrote (naming a path) by the
    path's last two parts, until the run of that config adopts it (``tipc.history.store``)."""
    return tuple(
        ReportSummary(p.summary.order or p.dir.name, _stored_key(p.summary.config), p.summary.to_json()) for p in past
    )


def _stored_key(config: str) -> str:
    return config if not config or is_key(config) else legacy_key(config)


def _keyed_as(run: Sequence[RunFigures], earlier: Sequence[RunFigures]) -> list[RunFigures]:
    """``earlier`` with the configs an older store or file named by their last two path parts named by
    ``run``'s keys, as a write would adopt them (``tipc.history.store``): a night judged without
    writing (``tipc merge``, one shard) reads the same history as the report that records it."""
    keys = {legacy_key(e.config): e.config for e in run if is_key(e.config)}
    return [e if is_key(e.config) else replace(e, config=keys.get(e.config, e.config)) for e in earlier]


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
        imported = () if earlier else read_trends(legacy, warn)
        if write:
            # A run without figures (nothing passed) adds no history; the report still shows the config's.
            history.record_run(model, mode, [*imported, *(e for e in run if e.figures)], stages, reports)
            return bounded(history.series(model, mode), keep)
    except (HistoryError, OSError) as exc:  # left as it is: never written over
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        warn(f"tipc: trend history {store} not read ({reason}); trends judge this run alone")
        return tuple(run)
    return bounded([*_keyed_as(run, [*earlier, *imported]), *run], keep)
