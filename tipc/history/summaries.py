"""A report's summary of its run: what later runs compare with, kept in the history store.

A summary names its run (``run_id``, sortable by start time) and its config: the baseline of a run
is the newest *earlier* run of the same config, whatever the folders' names or times say. Summaries
are history, not input we control: one that cannot be read is skipped with a warning, and never
stops a report.

Schema 2 added ``run_id``, ``config`` and each stage's ``carried`` (a record an earlier run made);
schema 1 summaries still read, as runs without either. Before the history store each report kept its
summary beside it, in ``summary.json``: those are read once, into the store (``tipc.history.legacy``);
no report writes one now.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tipc.errors import ResultsError
from tipc.files import read
from tipc.history.keys import same_config
from tipc.results.folder import Warn
from tipc.results.records import Status, run_verdict

SUMMARY_SCHEMA = 2


@dataclass(frozen=True, slots=True)
class StageSummary:
    id: str
    node_rank: int
    status: str
    reason: str
    figures: tuple[tuple[str, float], ...]
    carried: bool = False  # an earlier run made this record: it is not this run's news

    @property
    def key(self) -> tuple[str, int]:
        """(stage id, node rank): stage ids repeat across nodes."""
        return self.id, self.node_rank


@dataclass(frozen=True, slots=True)
class RunSummary:
    model: str
    mode: str
    timestamp: str
    stages: tuple[StageSummary, ...]
    run_id: str = ""  # "" for results from before run ids (and schema-1 summaries)
    config: str = ""  # "" for schema-1 summaries
    target_commit: str = ""  # the target repo's commit the run tested ("" unknown): a cell's nights compare by it

    @property
    def order(self) -> str:
        """What sorts runs by start: the run id, else the start time (an id's prefix)."""
        return self.run_id or self.timestamp

    @property
    def own(self) -> tuple[StageSummary, ...]:
        """The stages this run ran (or recorded as not run), without the carried-over ones."""
        return tuple(s for s in self.stages if not s.carried)

    def counts(self) -> dict[str, int]:
        return status_counts(s.status for s in self.own)

    def verdict(self) -> str:
        return run_verdict(s.status for s in self.own)

    def to_json(self) -> str:
        return json.dumps(
            {
                "schema": SUMMARY_SCHEMA,
                "model": self.model,
                "mode": self.mode,
                "timestamp": self.timestamp,
                "run_id": self.run_id,
                "config": self.config,
                "target_commit": self.target_commit,
                "counts": self.counts(),
                "stages": [
                    {
                        "id": s.id,
                        "node_rank": s.node_rank,
                        "status": s.status,
                        "reason": s.reason,
                        "figures": dict(s.figures),
                        "carried": s.carried,
                    }
                    for s in self.stages
                ],
            },
            indent=1,
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str, source: str) -> RunSummary:
        try:
            d = field(read.json_of(text), "summary", dict)
            schema = field(d.get("schema", 1), "schema", int)
            if schema > SUMMARY_SCHEMA:
                raise ValueError(f"schema {schema} is newer than this tipc reads ({SUMMARY_SCHEMA}); upgrade tipc")
            stages = tuple(_stage(s) for s in field(d.get("stages"), "stages", list))
            return cls(
                field(d.get("model"), "model", str),
                field(d.get("mode"), "mode", str),
                field(d.get("timestamp", ""), "timestamp", str),
                stages,
                field(d.get("run_id", ""), "run_id", str),
                field(d.get("config", ""), "config", str),
                field(d.get("target_commit", ""), "target_commit", str),
            )
        except (ValueError, OverflowError, RecursionError) as exc:  # OverflowError: a huge int as a figure
            raise ResultsError(source, 0, f"not a tipc report summary (schema {SUMMARY_SCHEMA}): {exc}") from None


def field(value: Any, name: str, *kinds: type) -> Any:
    """``value`` when it is one of ``kinds`` (a bool is no number here), else ``ValueError`` naming it."""
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise ValueError(f"{name} is {value!r:.60}, expected {' or '.join(k.__name__ for k in kinds)}")
    return value


def _stage(d: Any) -> StageSummary:
    d = field(d, "stage", dict)
    status = field(d.get("status"), "stage status", str)
    Status(status)  # raises ValueError naming it: comparing needs to know what it means
    figures = field(d.get("figures", {}), "stage figures", dict)
    return StageSummary(
        field(d.get("id"), "stage id", str),
        field(d.get("node_rank", 0), "stage node_rank", int),
        status,
        field(d.get("reason", ""), "stage reason", str),
        tuple(
            sorted(
                (field(k, "figure name", str), float(field(v, f"figure {k}", int, float))) for k, v in figures.items()
            )
        ),
        field(d.get("carried", False), "stage carried", bool),
    )


# A golden check's own outcomes and the machine's failures are counted when a run has them, not shown as zeros
# on every run.
_WHEN_PRESENT = (Status.NO_GOLDEN, Status.DIFFERS, Status.INFRA)


def status_counts(statuses: Iterable[str]) -> dict[str, int]:
    counts = dict.fromkeys((s.value for s in Status if s not in _WHEN_PRESENT), 0)
    for s in statuses:
        counts[s] = counts.get(s, 0) + 1
    return counts


@dataclass(frozen=True, slots=True)
class PastRun:
    """One earlier report of a mode folder (``dir``: where its page is or was)."""

    dir: Path
    summary: RunSummary
    key: str = ""  # the config's key in the store ("" for a summary read from a report folder)


def stored_history(
    stored: Iterable[tuple[str, str, str]], mode_dir: Path, current: str, warn: Warn
) -> tuple[PastRun, ...]:
    """The earlier runs of the history store (each run's order, config key and summary's text), as
    ``tipc.history.legacy.read_summaries`` gives them: newest first, ``current`` left out, a summary that does not read
    skipped with a warning."""
    found = []
    for run, key, text in stored:
        if run == current:
            continue
        try:
            found.append(PastRun(mode_dir / run, RunSummary.from_json(text, f"history run {run}"), key))
        except ResultsError as exc:
            warn(f"tipc: skipped report history entry {exc}")
    return tuple(sorted(found, key=lambda p: (p.summary.order, p.dir.name), reverse=True))


def previous_run(history: Sequence[PastRun], current: RunSummary) -> PastRun | None:
    """The newest run before ``current`` of the same model, mode and config, wherever either was
    checked out (``tipc.history.keys``: a new CI runner, another build folder is the same config). A summary
    that names no config (schema 1) stands for any config of its model and mode."""
    for past in history:  # newest first
        s = past.summary
        if (
            s.order < current.order
            and (s.model, s.mode) == (current.model, current.mode)
            and (not s.config or not current.config or same_config(past.key or s.config, current.config))
        ):
            return past
    return None
