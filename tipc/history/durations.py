"""What earlier runs measured: each stage's duration and peak memory, by stage.

The history store holds the newest duration of every stage a completed run recorded (the merge
job's report, for a split matrix). A results folder holds this run's ``results.jsonl`` and earlier
runs' under ``runs/<run id>/``; the newest record of a stage wins. Stages are keyed by the
config's last two path parts and the stage id (``PP-OCRv3_mobile_rec/train_infer_python.txt``,
``norm_train-gpus_0-fp32::train``): the same config in another checkout (another CI runner, a
Slurm node's scratch) is the same config.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tipc.history.keys import config_key
from tipc.history.store import DurationKey, History, HistoryError, history_file
from tipc.plan.model import Stage
from tipc.plan.naming import kind_of
from tipc.results.folder import RECORDS, ResultsDir, Warn, read_records
from tipc.results.records import StageRecord


@dataclass(frozen=True, slots=True)
class Measured:
    duration: float  # seconds
    peak_mb: float | None  # the stage's peak memory, None when not measured
    start: float  # when it ran: the newest wins
    whole_tree: bool = False  # peak_mb is the stage's whole process tree's, not one process's (older records)


def stage_key(config: str, stage_id: str) -> DurationKey:
    return config_key(config), stage_id


def _measured(records: Iterable[StageRecord]) -> dict[DurationKey, Measured]:
    out: dict[DurationKey, Measured] = {}
    for r in records:
        if not r.status.ran or r.duration <= 0:
            continue  # a blocked or skipped stage measured nothing
        key = stage_key(r.config, r.id)
        if key not in out or out[key].start <= r.start:
            # A record that keeps the root's own figure beside it holds the tree's (tipc.run.treemem).
            out[key] = Measured(r.duration, r.peak_rss_mb, r.start, r.process_peak_rss_mb is not None)
    return out


def read_history(
    folders: Iterable[Path], warn: Warn | None = None, store: Path | None = None
) -> dict[DurationKey, Measured]:
    """The newest measurement of every stage found for ``folders`` (``<model>/<mode>`` results
    folders): the history store's (``store``, the ``history`` setting, else ``history_file``'s choice:
    what a CI cache brings back), their own
    ``results.jsonl`` and the newest earlier run's. A bad line or store is skipped (with ``warn``):
    history only guides."""
    records: list[StageRecord] = []
    stored: dict[DurationKey, Measured] = {}
    wanted = [Path(p) for p in folders]
    for file, mode in dict.fromkeys((history_file(p, p.parent.name, p.name, p, store), p.name) for p in wanted):
        try:
            found = History(file, warn).measured(mode)
        except (HistoryError, OSError) as exc:
            (warn or (lambda _: None))(f"tipc: history {file} not read ({exc}); durations from the results folders")
            continue
        stored.update({k: Measured(t.duration, t.peak_mb, t.start) for k, t in found.items()})
    for path in wanted:
        folder = ResultsDir(path)
        previous = folder.previous_run_dir()
        for file in (folder.records_file, *(() if previous is None else (previous / RECORDS,))):
            records.extend(read_records(file, warn or (lambda _: None)))
    out = _measured(records)
    for key, m in stored.items():
        if key not in out or out[key].start < m.start:
            out[key] = m
    return out


@dataclass(frozen=True, slots=True)
class Durations:
    """Seconds per stage: the recorded ones, and for a stage never measured the mean recorded
    duration of its kind, else of any stage, else 1 s (so that, with no history at all, stage
    counts decide)."""

    measured: Mapping[DurationKey, Measured]
    kind_mean: Mapping[str, float]
    mean: float

    @classmethod
    def of(cls, history: Mapping[DurationKey, Measured]) -> Durations:
        by_kind: dict[str, list[float]] = {}
        for (_, sid), m in history.items():
            kind = kind_of(sid.rpartition("::")[2])
            by_kind.setdefault(kind.value if kind else "", []).append(m.duration)
        every = [d for ds in by_kind.values() for d in ds]
        return cls(
            history,
            {k: sum(ds) / len(ds) for k, ds in by_kind.items()},
            sum(every) / len(every) if every else 1.0,
        )

    def stage(self, config: str, stage: Stage) -> float:
        known = self.measured.get(stage_key(config, stage.id))
        if known is not None:
            return known.duration
        return self.kind_mean.get(stage.kind.value, self.mean)
