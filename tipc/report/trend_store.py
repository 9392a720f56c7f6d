"""The trend history: every run's benchmark figures, per config, stage and figure, in one file.

``<out_root>/<model>/<mode>/trends.jsonl``, beside the run folders it summarizes, one JSON line
per run, oldest first::

    {"schema": 1, "run": "20261201T013000Z-5f3a9c1e", "config": "tinyrec/train_….txt",
     "stages": [{"id": "…::infer[…-bs1]", "node": 0, "figures": {"inference_ms": 4.2, …}}]}

A run writes a line per config (configs of one model share a results folder and a report,
not a history). Only stages that passed in the run itself give figures (a failed stage's
numbers are no baseline, a carried record is an earlier run's). Each config keeps its last
``keep`` runs, so the file stays small whatever the number of nights; re-rendering a run
replaces its lines.
This module alone reads and writes the file. It is rewritten whole and atomically (a crash
leaves the old file or the new one); a line that does not read (a newer schema, a hand edit,
a bad disk) is skipped with a warning naming the file and line, and before the file is
rewritten without it, the file as it was is kept beside it (``trends.jsonl.bad-<run>``).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tipc.report.compare import _field
from tipc.report.figures import stage_figures
from tipc.results.folder import Warn, write_atomic
from tipc.results.records import StageRecord, Status

TREND_FILE = "trends.jsonl"
TREND_SCHEMA = 1

SeriesKey = tuple[str, int, str]  # stage id, node rank, figure key (tipc.report.figures)


@dataclass(frozen=True, slots=True)
class RunFigures:
    """One run's line: ``run`` sorts runs by start (the run id, or the start time before run ids)."""

    run: str
    config: str
    figures: Mapping[SeriesKey, float]

    def to_json(self) -> str:
        stages: dict[tuple[str, int], dict[str, float]] = {}
        for (stage, node, figure), value in self.figures.items():
            stages.setdefault((stage, node), {})[figure] = value
        return json.dumps(
            {
                "schema": TREND_SCHEMA,
                "run": self.run,
                "config": self.config,
                "stages": [{"id": s, "node": n, "figures": f} for (s, n), f in stages.items()],
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> RunFigures:
        """``ValueError`` saying what is wrong with the line."""
        d = _field(json.loads(text), "line", dict)
        schema = _field(d.get("schema"), "schema", int)
        if schema != TREND_SCHEMA:
            raise ValueError(f"schema {schema}, this tipc reads schema {TREND_SCHEMA}")
        figures: dict[SeriesKey, float] = {}
        for item in _field(d.get("stages"), "stages", list):
            s = _field(item, "stage", dict)
            stage, node = _field(s.get("id"), "stage id", str), _field(s.get("node"), "stage node", int)
            for key, value in _field(s.get("figures"), "stage figures", dict).items():
                if type(value) not in (int, float):  # a bool is no figure either
                    raise ValueError(f"figure {key} is {value!r:.60}, expected a number")
                figures[(stage, node, key)] = float(value)
        return cls(_field(d.get("run"), "run", str), _field(d.get("config"), "config", str), figures)


def run_figures(run: str, records: Iterable[StageRecord]) -> tuple[RunFigures, ...]:
    """A run's lines, one per config that wrote ``records`` (the run's own: not carried over): the
    figures of the stages that passed. Configs that share a results folder keep apart histories.
    A config none of whose stages passed has a line without figures: its history is still shown
    (``record_run`` does not store such a line)."""
    per_config: dict[str, dict[SeriesKey, float]] = {}
    for r in records:
        figures = per_config.setdefault(r.config, {})
        if r.status is Status.PASSED:
            figures.update({(r.id, r.node_rank, key): value for key, value in stage_figures(r).items()})
    return tuple(RunFigures(run, config, figures) for config, figures in per_config.items())


def _lines(path: Path, warn: Warn) -> tuple[list[tuple[RunFigures, str]], bool]:
    """Each line that reads, with its text (written back as it was), and whether every line did."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], True
    found, clean = [], True
    for number, raw in enumerate(data.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
            found.append((RunFigures.from_json(text), text))
        except (ValueError, OverflowError, RecursionError) as exc:  # UnicodeDecodeError, JSONDecodeError too
            warn(f"tipc: skipped trend history line {path}:{number}: {exc}")
            clean = False
    return found, clean


def read_store(path: Path, warn: Warn) -> tuple[tuple[RunFigures, ...], bool]:
    """The lines that read, oldest run first, and whether every line did."""
    found, clean = _lines(path, warn)
    return tuple(sorted((e for e, _ in found), key=lambda e: e.run)), clean


def _bounded(lines: Sequence[tuple[RunFigures, str]], keep: int) -> list[tuple[RunFigures, str]]:
    """The last ``keep`` runs of each config, oldest first."""
    per_config: dict[str, list[tuple[RunFigures, str]]] = {}
    for line in sorted(lines, key=lambda line: line[0].run):
        per_config.setdefault(line[0].config, []).append(line)
    return sorted((line for runs in per_config.values() for line in runs[-keep:]), key=lambda line: line[0].run)


def record_run(
    mode_dir: Path, run: Sequence[RunFigures], keep: int, warn: Warn, *, write: bool = True
) -> tuple[RunFigures, ...]:
    """Add (or replace) a run's lines in the mode folder's history; return the history as written.
    ``write=False``: the history as it would be, the file left as it is."""
    path = mode_dir / TREND_FILE
    try:
        lines, clean = _lines(path, warn)
    except OSError as exc:  # unreadable, not corrupt: leave it alone rather than write over it
        warn(f"tipc: trend history {path} not read ({exc.strerror or exc}); trends judge this run alone")
        return tuple(run)
    new = {(e.run, e.config) for e in run}
    stored = [(e, e.to_json()) for e in run if e.figures]  # a run without figures adds no history
    kept = _bounded([*(x for x in lines if (x[0].run, x[0].config) not in new), *stored], keep)
    if not write or (clean and not stored and len(kept) == len(lines)):
        return tuple(e for e, _ in kept)
    if not clean:
        spare = path.with_name(f"{TREND_FILE}.bad-{min((e.run for e in run), default='run')}")
        shutil.copyfile(path, spare)
        warn(f"tipc: trend history {path} had lines that do not read; the file as it was is kept as {spare}")
    write_atomic(path, "".join(text + "\n" for _, text in kept))
    return tuple(e for e, _ in kept)
