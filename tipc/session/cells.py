"""Each stage's state across nights, stamped on its record the moment the stage ends (both fronts).

A cell is one stage of one config in one mode; its earlier nights are the report summaries the history
store keeps for that model and mode (``tipc.report.compare.RunSummary``: each stage's status, and the
target's commit the night tested). ``tipc.triage.states`` judges; this module only reads the nights, once
per results folder and run, and only the last ``LOOK_BACK``: a year of nights costs what a month does.
History only guides: a store that cannot be read gives no earlier nights, and the run goes on.
"""

from __future__ import annotations

import calendar
import contextlib
import time
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from tipc.errors import ResultsError
from tipc.history.store import History, HistoryError, history_file
from tipc.history.summaries import RunSummary
from tipc.plan import Plan
from tipc.report.write import report_mode_dir
from tipc.results.folder import portable_root
from tipc.results.records import StageRecord, Status
from tipc.session.report import report_root
from tipc.session.settings import Settings
from tipc.triage.states import Night, outcome_of, state_of

LOOK_BACK = 30  # earlier nights read per model and mode, newest first

CellKey = tuple[str, int]  # (stage id, node rank)
Nights = Mapping[CellKey, tuple[Night, ...]]


def _start(timestamp: str) -> float:
    try:
        return float(calendar.timegm(time.strptime(timestamp, "%Y%m%dT%H%M%SZ")))
    except ValueError:
        return 0.0


def nights_of(summaries: Iterable[RunSummary], before: str) -> dict[CellKey, tuple[Night, ...]]:
    """Each cell's nights before run ``before`` (by run order), newest first. A carried-over record is an
    earlier night's word, not that night's: the night did not run it."""
    found: dict[CellKey, list[Night]] = {}
    for summary in sorted((s for s in summaries if s.order < before), key=lambda s: s.order, reverse=True):
        for stage in summary.stages:
            outcome = outcome_of(Status(stage.status)) if not stage.carried else outcome_of(Status.SKIPPED)
            night = Night(summary.order, _start(summary.timestamp), summary.target_commit, outcome)
            found.setdefault(stage.key, []).append(night)
    return {key: tuple(nights) for key, nights in found.items()}


def stamped(record: StageRecord, commit: str, nights: Nights) -> StageRecord:
    """``record`` with its state among ``nights``; a stage that failed, then passed when run again in this
    run (``--confirm``, a rerun plugin) is flaky."""
    found = state_of(outcome_of(record.status), commit, nights.get((record.id, record.node_rank), ()), record.flaky)
    return replace(record, state=found.state.value, state_since=found.since, state_nights=found.nights)


class CellStates:
    """The states of one results folder's cells in run ``run_id``: the store is read at the first stage's end."""

    def __init__(self, store: Path, model: str, mode: str, run_id: str) -> None:
        self.store, self.model, self.mode, self.run_id = store, model, mode, run_id
        self._nights: Nights | None = None

    def nights(self) -> Nights:
        if self._nights is None:
            try:
                stored = History(self.store, lambda _: None).reports(self.model, self.mode, LOOK_BACK)
            except (HistoryError, OSError):  # the report that follows says what is wrong with it
                stored = ()
            summaries = []
            for entry in stored:
                with contextlib.suppress(ResultsError):  # so too of a summary that does not read
                    summaries.append(RunSummary.from_json(entry.text, f"history run {entry.run}"))
            self._nights = nights_of(summaries, self.run_id)
        return self._nights

    def __call__(self, record: StageRecord, commit: str) -> StageRecord:
        return stamped(record, commit, self.nights())


def cell_states(settings: Settings, folder: Path, plan: Plan, run_id: str) -> CellStates:
    """The states of ``plan``'s cells in ``folder``, from the store its report records the night in."""
    fallback = report_mode_dir(report_root(settings, Path.cwd()), plan.model, plan.mode)
    store = history_file(portable_root(folder), plan.model, plan.mode, fallback, settings.run.history)
    return CellStates(store, plan.model, plan.mode, run_id)
