"""benchmark_train's analysis step: after a benchmark train, its speed JSON where the script's step wrote it.

The figures come from the train's own part of its log (``since`` to ``until``), like every figure tipc records; the
run time is the stage's duration in seconds (the script subtracted two ``%Y%m%d%H%M%S`` stamps, wrong
across a minute, B16); ``model_branch``, ``model_commit``, ``frame_commit`` and ``frame_version`` come
from the environment as the step read them, ``frame_version`` falling back to the stage interpreter's
paddle version. A run with too few steps gets the step's ``ips`` 0 and the record says why.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tipc.files.write import write_atomic
from tipc.metrics.logfile import log_lines
from tipc.metrics.speed import AT_LEAST_MORE_THAN, SKIP_STEPS, SpeedRun, speed_figures, speed_json, speed_metrics
from tipc.plan.model import SpeedSpec


def speed_run(spec: SpeedSpec, duration: float, environ: Mapping[str, str], paddle_version: str) -> SpeedRun:
    return SpeedRun(
        spec,
        model_run_time=str(round(duration)),
        model_branch=environ.get("model_branch"),
        model_commit=environ.get("model_commit"),
        frame_commit=environ.get("frame_commit"),
        frame_version=environ.get("frame_version") or paddle_version or None,
    )


def write_speed(
    spec: SpeedSpec, cwd: Path, log: Path, since: int, run: SpeedRun, until: int | None = None
) -> tuple[dict[str, Any], str]:
    """Write the JSON from the train's part ``since``..``until`` of ``log``; returns the record's
    figures and a reason when the run logged too few steps."""
    figures = speed_figures(log_lines(log, since, until)) if log.is_file() else speed_figures(())
    target = cwd / spec.file
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, json.dumps(speed_json(run, figures)))
    metrics = {**speed_metrics(spec, figures), "speed_file": str(target)}
    if figures.ips is not None:
        return metrics, ""
    return metrics, (
        f"speed: {figures.records} 'ips:' records in {log}, the analysis needs more than "
        f"{SKIP_STEPS + AT_LEAST_MORE_THAN}: ips 0 in the speed JSON (train longer or on more data)"
    )
