"""The speed figures of ``benchmark_train.sh``'s analysis step (docs/spec.md §6.4), from a train log.

The step reads every line holding ``ips:``, takes the token after it, and needs more than
``skip_steps + 10`` of them (else ``ips`` is 0 and the unit empty, as it printed "too few logs"); it
drops the first ``skip_steps``, sorts the rest, drops ``max(5 %, 5)`` from each end and averages what is
left; the figure is multiplied by the cards of ``NxCy`` (one process logs, every card trains). The
loss is the token after the last ``loss:``. ``speed_json`` lays these out with the step's keys.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from statistics import fmean
from typing import Any

KEYWORD = "ips:"
CONVERGENCE_KEY = "loss:"
SKIP_STEPS = 2
_TRIM_SHARE = 0.05
_TRIM_AT_LEAST = 5
_AT_LEAST_MORE_THAN = 10  # records beyond the skipped ones


@dataclass(frozen=True, slots=True)
class SpeedFigures:
    """One run's figures: ``ips`` per process (None: too few records) and the last loss token."""

    records: int
    ips: float | None
    loss: str | None


def token_after(line: str, key: str) -> str | None:
    """The whitespace token after the exact token ``key``, commas stripped (``loss: 1.2,``)."""
    tokens = line.split()
    for i, token in enumerate(tokens[:-1]):
        if token == key:
            return tokens[i + 1].replace(",", "")
    return None


def trimmed_mean(records: list[float], skip: int = SKIP_STEPS) -> float | None:
    if len(records) <= skip + _AT_LEAST_MORE_THAN:
        return None
    kept = sorted(records[skip:])
    cut = max(int(len(kept) * _TRIM_SHARE), _TRIM_AT_LEAST)
    kept = kept[cut : len(kept) - cut]
    return fmean(kept) if kept else None


def speed_figures(lines: Iterable[str]) -> SpeedFigures:
    """Read once, line by line: a long training's log never sits in memory."""
    records: list[float] = []
    loss: str | None = None
    for line in lines:
        if KEYWORD in line:
            value = token_after(line, KEYWORD)
            if value is not None:
                try:
                    records.append(float(value))
                except ValueError:
                    pass  # the step skips a token that is not a number too
        if CONVERGENCE_KEY in line:
            loss = token_after(line, CONVERGENCE_KEY) or loss
    return SpeedFigures(len(records), trimmed_mean(records), loss)


@dataclass(frozen=True, slots=True)
class SpeedRun:
    """What the script passed to the step about one run, and what it exported around it."""

    model_name: str
    batch_size: int
    fp_item: str
    run_mode: str
    device_num: str
    cards: int
    speed_unit: str
    model_run_time: str  # seconds, as text (the step read it from the environment)
    model_branch: str | None = None
    model_commit: str | None = None
    frame_commit: str | None = None
    frame_version: str | None = None


def speed_json(run: SpeedRun, figures: SpeedFigures) -> dict[str, Any]:
    """The step's JSON object, its keys in its order."""
    total = None if figures.ips is None else round(figures.ips * run.cards, 3)
    return {
        "model_branch": run.model_branch,
        "model_commit": run.model_commit,
        "model_name": run.model_name,
        "batch_size": run.batch_size,
        "fp_item": run.fp_item,
        "run_mode": run.run_mode,
        "convergence_value": figures.loss if figures.loss is not None else 0,
        "convergence_key": CONVERGENCE_KEY,
        "ips": 0 if total is None else total,
        "speed_unit": "" if total is None else run.speed_unit,
        "device_num": run.device_num,
        "model_run_time": run.model_run_time,
        "frame_commit": run.frame_commit,
        "frame_version": run.frame_version,
    }


def speed_metrics(run: SpeedRun, figures: SpeedFigures) -> dict[str, Any]:
    """tipc's record of the run (``StageRecord.metrics``): the total figure, the time per step, the runs' axes."""
    per_process = figures.ips
    return {
        "speed_ips": None if per_process is None else round(per_process * run.cards, 3),
        "ms_per_step": None if not per_process else round(run.batch_size * 1000 / per_process, 3),
        "speed_records": figures.records,
        "batch_size": run.batch_size,
        "fp_item": run.fp_item,
        "run_mode": run.run_mode,
        "device_num": run.device_num,
        "speed_unit": run.speed_unit,
    }
