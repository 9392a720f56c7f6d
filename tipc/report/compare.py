"""Run-to-run comparison: a small summary per run, and what changed between two.

``summary.json`` (one beside every report) is what later runs compare against, so
history never needs the old results directories. A summary names its run (``run_id``,
sortable by start time) and its config: the baseline of a run is the newest *earlier*
run of the same config, whatever the folders' names or times say. Summaries are
history, not input we control: one that cannot be read is skipped with a warning, and
never stops a report.

Schema 2 added ``run_id``, ``config`` and each stage's ``carried`` (a record an earlier
run made); schema 1 summaries still read, as runs without either.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tipc.errors import ResultsError
from tipc.files import read
from tipc.history.keys import config_key
from tipc.report.figures import FIGURE_BY_KEY, stage_figures
from tipc.report.load import RunIds, is_carried
from tipc.report.model import Comparison, FigureMove, NotCompared, StageChange
from tipc.report.naming import StageKey
from tipc.results.folder import Warn
from tipc.results.records import StageRecord, Status, run_verdict

SUMMARY_FILE = "summary.json"
SUMMARY_SCHEMA = 2
DEFAULT_THRESHOLD = 0.10
MAX_SUMMARY_BYTES = 64 << 20  # a summary holds a line per stage


@dataclass(frozen=True, slots=True)
class StageSummary:
    id: str
    node_rank: int
    status: str
    reason: str
    figures: tuple[tuple[str, float], ...]
    carried: bool = False  # an earlier run made this record: it is not this run's news

    @property
    def key(self) -> StageKey:
        return self.id, self.node_rank


@dataclass(frozen=True, slots=True)
class RunSummary:
    model: str
    mode: str
    timestamp: str
    stages: tuple[StageSummary, ...]
    run_id: str = ""  # "" for results from before run ids (and schema-1 summaries)
    config: str = ""  # "" for schema-1 summaries

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
            d = _field(read.json_of(text), "summary", dict)
            schema = _field(d.get("schema", 1), "schema", int)
            if schema > SUMMARY_SCHEMA:
                raise ValueError(f"schema {schema} is newer than this tipc reads ({SUMMARY_SCHEMA}); upgrade tipc")
            stages = tuple(_stage(s) for s in _field(d.get("stages"), "stages", list))
            return cls(
                _field(d.get("model"), "model", str),
                _field(d.get("mode"), "mode", str),
                _field(d.get("timestamp", ""), "timestamp", str),
                stages,
                _field(d.get("run_id", ""), "run_id", str),
                _field(d.get("config", ""), "config", str),
            )
        except (ValueError, OverflowError, RecursionError) as exc:  # OverflowError: a huge int as a figure
            raise ResultsError(source, 0, f"not a tipc report summary (schema {SUMMARY_SCHEMA}): {exc}") from None


def _field(value: Any, name: str, *kinds: type) -> Any:
    """``value`` when it is one of ``kinds`` (a bool is no number here), else ``ValueError`` naming it."""
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise ValueError(f"{name} is {value!r:.60}, expected {' or '.join(k.__name__ for k in kinds)}")
    return value


def _stage(d: Any) -> StageSummary:
    d = _field(d, "stage", dict)
    status = _field(d.get("status"), "stage status", str)
    Status(status)  # raises ValueError naming it: comparing needs to know what it means
    figures = _field(d.get("figures", {}), "stage figures", dict)
    return StageSummary(
        _field(d.get("id"), "stage id", str),
        _field(d.get("node_rank", 0), "stage node_rank", int),
        status,
        _field(d.get("reason", ""), "stage reason", str),
        tuple(
            sorted(
                (_field(k, "figure name", str), float(_field(v, f"figure {k}", int, float))) for k, v in figures.items()
            )
        ),
        _field(d.get("carried", False), "stage carried", bool),
    )


# A golden check's own outcomes are counted when a run has them, not shown as zeros on every run.
_GOLDEN_ONLY = (Status.NO_GOLDEN, Status.DIFFERS)


def status_counts(statuses: Iterable[str]) -> dict[str, int]:
    counts = dict.fromkeys((s.value for s in Status if s not in _GOLDEN_ONLY), 0)
    for s in statuses:
        counts[s] = counts.get(s, 0) + 1
    return counts


def summarize(
    model: str,
    mode: str,
    timestamp: str,
    records: Iterable[StageRecord],
    *,
    run_id: str = "",
    config: str = "",
    run_ids: RunIds | None = None,
) -> RunSummary:
    """``run_ids``: each node's run (``load.run_ids``); records of other runs are marked carried."""
    return RunSummary(
        model,
        mode,
        timestamp,
        tuple(
            StageSummary(
                r.id,
                r.node_rank,
                r.status.value,
                r.reason,
                tuple(sorted(stage_figures(r).items())),
                is_carried(r, run_ids or {}),
            )
            for r in records
        ),
        run_id,
        config,
    )


def _label(key: StageKey, multi: bool) -> str:
    return f"{key[0]} (node {key[1]})" if multi else key[0]


def compare(
    before: RunSummary,
    after: RunSummary,
    anchors: Mapping[StageKey, str],
    *,
    against: str,
    against_href: str = "",
    threshold: float = DEFAULT_THRESHOLD,
) -> Comparison:
    """What changed in ``after``'s own stages. ``before`` counts whole, carried stages too:
    they were the latest word on those stages when it ran. Figures are compared only between
    two passes: a failed stage's figures (an OOM-killed training's peak, a crash's few steps)
    are no performance change, and are listed as not compared instead."""
    old = {s.key: s for s in before.stages}
    mine = after.own
    multi = len({s.node_rank for s in mine}) > 1
    new_failures: list[StageChange] = []
    fixed: list[StageChange] = []
    still: list[StageChange] = []
    moves: list[FigureMove] = []
    skipped: list[NotCompared] = []
    for s in mine:
        prev = old.get(s.key)
        label, anchor = _label(s.key, multi), anchors.get(s.key, "")
        change = StageChange(label, anchor, prev.status if prev else "", s.status, s.reason)
        was_bad = prev is not None and Status(prev.status).is_failure
        if Status(s.status).is_failure:
            (still if was_bad else new_failures).append(change)
        elif was_bad and s.status == Status.PASSED.value:
            fixed.append(change)
        if prev is None or not (prev.figures or s.figures):
            continue
        why = not_compared_why(prev.status, s.status, kind_of(s.id))
        if why:
            skipped.append(NotCompared(label, anchor, why))
        else:
            moves.extend(_moves(label, anchor, dict(prev.figures), dict(s.figures), threshold))
    return Comparison(
        against=against,
        against_href=against_href,
        threshold=threshold,
        new_failures=tuple(new_failures),
        fixed=tuple(fixed),
        still_failing=tuple(still),
        moves=tuple(moves),
        not_compared=tuple(skipped),
    )


def kind_of(stage_id: str) -> str:
    """The stage's kind as a word for people, from its id's last part (``chain::infer[...]``)."""
    name = stage_id.rpartition("::")[2].partition("[")[0]
    return {"train": "training", "eval": "evaluation", "export": "export", "infer": "inference"}.get(name, name)


def not_compared_why(before: str, after: str, kind: str) -> str:
    """Why a stage's figures are not compared ("" when both runs passed it)."""
    if after != Status.PASSED.value:
        return f"not compared: {kind} {after} in this run"
    if before != Status.PASSED.value:
        return f"not compared: {kind} {before or 'did not run'} in the earlier run"
    return ""


def _moves(
    label: str, anchor: str, before: dict[str, float], after: dict[str, float], threshold: float
) -> list[FigureMove]:
    out = []
    for key, new in after.items():
        old, fig = before.get(key), FIGURE_BY_KEY.get(key)
        if old is None or fig is None or old == 0:
            continue
        change = (new - old) / abs(old)
        if abs(change) > threshold:
            out.append(
                FigureMove(
                    label, anchor, fig.label, fig.unit, old, new, change, better=(change > 0) == fig.higher_is_better
                )
            )
    return out


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


@dataclass(frozen=True, slots=True)
class PastRun:
    """One earlier report of a mode folder (``dir``: where its page is or was)."""

    dir: Path
    summary: RunSummary


def stored_history(stored: Iterable[tuple[str, str]], mode_dir: Path, current: str, warn: Warn) -> tuple[PastRun, ...]:
    """The earlier runs of the history store (each run's order and its summary's text), as
    ``read_history`` gives them: newest first, ``current`` left out, a summary that does not read
    skipped with a warning."""
    found = []
    for run, text in stored:
        if run == current:
            continue
        try:
            found.append(PastRun(mode_dir / run, RunSummary.from_json(text, f"history run {run}")))
        except ResultsError as exc:
            warn(f"tipc: skipped report history entry {exc}")
    return tuple(sorted(found, key=lambda p: (p.summary.order, p.dir.name), reverse=True))


def read_history(mode_dir: Path, current: str, warn: Warn) -> tuple[PastRun, ...]:
    """Every report directory of ``mode_dir`` but ``current`` whose summary reads, newest run first:
    the history of reports from before the history store, read into it once (``tipc.report.trend_store``).

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


def previous_run(history: Sequence[PastRun], current: RunSummary) -> PastRun | None:
    """The newest run before ``current`` of the same model, mode and config, wherever either was
    checked out (``config_key``: a new CI runner, another build folder is the same config). A summary
    that names no config (schema 1) stands for any config of its model and mode."""
    for past in history:  # newest first
        s = past.summary
        if (
            s.order < current.order
            and (s.model, s.mode) == (current.model, current.mode)
            and (not s.config or not current.config or config_key(s.config) == config_key(current.config))
        ):
            return past
    return None
