"""The speed figures of ``benchmark_train.sh``'s analysis step (docs/spec.md §6.4), from a train log.

The step reads every line holding ``ips:``, takes the token after it, and needs more than
``skip_steps + 10`` of them (else ``ips`` is 0 and the unit empty, as it printed "too few logs"); it
drops the first ``skip_steps``, sorts the rest, drops ``max(5 %, 5)`` from each end and averages what is
left; the figure is multiplied by the cards of ``NxCy`` (one process logs, every card trains). The
loss is the token after the last ``loss:``. ``speed_json`` lays these out with the step's keys.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from tipc.plan.model import SpeedSpec

KEYWORD = "ips:"
CONVERGENCE_KEY = "loss:"
SKIP_STEPS = 2
_TRIM_SHARE = 0.05
_TRIM_AT_LEAST = 5
AT_LEAST_MORE_THAN = 10  # records beyond the skipped ones


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
    if len(records) <= skip + AT_LEAST_MORE_THAN:
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
                with contextlib.suppress(ValueError):  # the step skips a token that is not a number too
                    records.append(float(value))
        if CONVERGENCE_KEY in line:
            loss = token_after(line, CONVERGENCE_KEY) or loss
    return SpeedFigures(len(records), trimmed_mean(records), loss)


@dataclass(frozen=True, slots=True)
class SpeedRun:
    """What the script passed to the step about one run (``spec``), and what it exported around it."""

    spec: SpeedSpec
    model_run_time: str  # seconds, as text (the step read it from the environment)
    model_branch: str | None = None
    model_commit: str | None = None
    frame_commit: str | None = None
    frame_version: str | None = None


def speed_json(run: SpeedRun, figures: SpeedFigures) -> dict[str, Any]:
    """The step's JSON object, its keys in its order."""
    spec, total = run.spec, _total(run.spec, figures.ips)
    return {
        "model_branch": run.model_branch,
        "model_commit": run.model_commit,
        "model_name": spec.model_name,
        "batch_size": spec.batch_size,
        "fp_item": spec.fp_item,
        "run_mode": spec.run_mode,
        "convergence_value": figures.loss if figures.loss is not None else 0,
        "convergence_key": CONVERGENCE_KEY,
        "ips": 0 if total is None else total,
        "speed_unit": "" if total is None else spec.speed_unit,
        "device_num": spec.device_num,
        "model_run_time": run.model_run_time,
        "frame_commit": run.frame_commit,
        "frame_version": run.frame_version,
    }


def speed_metrics(spec: SpeedSpec, figures: SpeedFigures) -> dict[str, Any]:
    """tipc's record of the run (``StageRecord.metrics``): the total figure, the time per step, the runs' axes."""
    per_process = figures.ips
    return {
        "speed_ips": _total(spec, per_process),
        "ms_per_step": None if not per_process else round(spec.batch_size * 1000 / per_process, 3),
        "speed_records": figures.records,
        "batch_size": spec.batch_size,
        "fp_item": spec.fp_item,
        "run_mode": spec.run_mode,
        "device_num": spec.device_num,
        "speed_unit": spec.speed_unit,
    }


def _total(spec: SpeedSpec, per_process: float | None) -> float | None:
    """Every card's: one process logs, all train alike."""
    return None if per_process is None else round(per_process * spec.cards, 3)
