"""Run-to-run comparison: a small summary per run, and what changed between two.

``summary.json`` (one beside every report) is what later runs compare against, so
history never needs the old results directories.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from tipc.errors import ResultsError
from tipc.report.figures import FIGURE_BY_KEY, stage_figures
from tipc.report.model import Comparison, FigureMove, StageChange
from tipc.report.naming import StageKey
from tipc.results.records import Status, StageRecord

SUMMARY_FILE = "summary.json"
SUMMARY_SCHEMA = 1
DEFAULT_THRESHOLD = 0.10


@dataclass(frozen=True, slots=True)
class StageSummary:
    id: str
    node_rank: int
    status: str
    reason: str
    figures: tuple[tuple[str, float], ...]

    @property
    def key(self) -> StageKey:
        return self.id, self.node_rank


@dataclass(frozen=True, slots=True)
class RunSummary:
    model: str
    mode: str
    timestamp: str
    stages: tuple[StageSummary, ...]

    def to_json(self) -> str:
        return json.dumps({
            "schema": SUMMARY_SCHEMA, "model": self.model, "mode": self.mode, "timestamp": self.timestamp,
            "counts": status_counts(s.status for s in self.stages),
            "stages": [{"id": s.id, "node_rank": s.node_rank, "status": s.status, "reason": s.reason,
                        "figures": dict(s.figures)} for s in self.stages],
        }, indent=1, sort_keys=True)

    @classmethod
    def from_json(cls, text: str, source: str) -> "RunSummary":
        try:
            d = json.loads(text)
            stages = tuple(
                StageSummary(s["id"], int(s.get("node_rank", 0)), s["status"], s.get("reason", ""),
                             tuple(sorted((k, float(v)) for k, v in s.get("figures", {}).items())))
                for s in d["stages"])
            return cls(d["model"], d["mode"], d.get("timestamp", ""), stages)
        except (ValueError, TypeError, KeyError) as exc:
            raise ResultsError(source, 0, f"expected a tipc report summary (schema {SUMMARY_SCHEMA}): {exc}") from exc


def status_counts(statuses) -> dict[str, int]:
    counts = dict.fromkeys((s.value for s in Status), 0)
    for s in statuses:
        counts[s] = counts.get(s, 0) + 1
    return counts


def summarize(model: str, mode: str, timestamp: str, records: Sequence[StageRecord]) -> RunSummary:
    return RunSummary(model, mode, timestamp, tuple(
        StageSummary(r.id, r.node_rank, r.status.value, r.reason, tuple(sorted(stage_figures(r).items())))
        for r in records))


def _label(key: StageKey, multi: bool) -> str:
    return f"{key[0]} (node {key[1]})" if multi else key[0]


def compare(before: RunSummary, after: RunSummary, anchors: Mapping[StageKey, str], *,
            against: str, against_href: str = "", threshold: float = DEFAULT_THRESHOLD) -> Comparison:
    old = {s.key: s for s in before.stages}
    multi = len({s.node_rank for s in after.stages}) > 1
    new_failures, fixed, still, moves = [], [], [], []
    for s in after.stages:
        prev = old.get(s.key)
        label, anchor = _label(s.key, multi), anchors.get(s.key, "")
        change = StageChange(label, anchor, prev.status if prev else "", s.status, s.reason)
        was_bad = prev is not None and Status(prev.status).is_failure
        if Status(s.status).is_failure:
            (still if was_bad else new_failures).append(change)
        elif was_bad and s.status == Status.PASSED.value:
            fixed.append(change)
        if prev is not None:
            moves.extend(_moves(label, anchor, dict(prev.figures), dict(s.figures), threshold))
    return Comparison(against=against, against_href=against_href, threshold=threshold,
                      new_failures=tuple(new_failures), fixed=tuple(fixed), still_failing=tuple(still),
                      moves=tuple(moves))


def _moves(label: str, anchor: str, before: dict[str, float], after: dict[str, float],
           threshold: float) -> list[FigureMove]:
    out = []
    for key, new in after.items():
        old, fig = before.get(key), FIGURE_BY_KEY.get(key)
        if old is None or fig is None or old == 0:
            continue
        change = (new - old) / abs(old)
        if abs(change) > threshold:
            out.append(FigureMove(label, anchor, fig.label, fig.unit, old, new, change,
                                  better=(change > 0) == fig.higher_is_better))
    return out


def read_summary(path: Path) -> RunSummary:
    return RunSummary.from_json(path.read_text(encoding="utf-8"), str(path))


def previous_in_history(mode_dir: Path, current: str) -> Path | None:
    """The newest report directory older than ``current`` that has a summary."""
    if not mode_dir.is_dir():
        return None
    older = sorted(d.name for d in mode_dir.iterdir()
                   if d.is_dir() and not d.is_symlink() and d.name < current and (d / SUMMARY_FILE).is_file())
    return mode_dir / older[-1] if older else None
