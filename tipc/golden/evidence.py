"""This run's evidence for a golden check, from this run's records and the parts of logs they own.

Training losses come from the part of the trainer's appended ``train.log`` written after the
size it had when this run's train stage started (``StageRecord.log_offsets``); eval metrics
from the eval record; predictions from each infer stage's own log, which the stage wrote anew (or, in a
suite whose predictor saves its predictions, what the stage saved: the dialect's reader).
The caller hands only records of stages that ran and passed in this run.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tipc.golden.compare import Case, Evidence
from tipc.metrics.logfile import log_lines
from tipc.metrics.predictions import Prediction, read_predictions
from tipc.metrics.trainlog import losses_of_lines
from tipc.plan.model import Stage, StageKind
from tipc.results.records import StageRecord


def train_losses(record: StageRecord) -> tuple[float, ...]:
    """The losses of a train record's own part of the trainer's ``train.log`` (its log when none):
    from the size the log had when the stage started, for as many steps as the stage logged (a
    later run appends to the same file)."""
    appended = [Path(k) for k in record.log_offsets if Path(k).name == "train.log"]
    log = appended[0] if appended and appended[0].is_file() else Path(record.log)
    steps = record.metrics.get("steps")
    try:
        lines = log_lines(log, record.log_offsets.get(str(log), 0))
        return tuple(losses_of_lines(lines, int(steps) if isinstance(steps, int | float) else None))
    except OSError:
        return ()


def predictions_of(record: StageRecord) -> tuple[Prediction, ...]:
    """What an infer stage predicted, read as its config's dialect reads its predictor's output (detected from
    the config's checkout, as when it was planned): PaddleOCR's lines in its log unless the dialect says."""
    from tipc.suites.front import dialect_for  # the dialects: plugins' included

    try:
        reader = dialect_for(Path(record.config))[0].predictions if record.config else None
        return read_predictions(Path(record.log)) if reader is None else reader(record)
    except OSError:
        return ()


def numbers(metrics: dict[str, object]) -> dict[str, float]:
    return {k: float(v) for k, v in metrics.items() if isinstance(v, int | float) and not isinstance(v, bool)}


def gather(ran: Sequence[tuple[Stage, StageRecord]]) -> Evidence:
    losses: tuple[float, ...] | None = None
    metrics: dict[str, float] | None = None
    cases = []
    for stage, record in ran:
        if stage.kind is StageKind.TRAIN:
            losses = (*(losses or ()), *train_losses(record))
        elif stage.kind is StageKind.EVAL:
            metrics = {**(metrics or {}), **numbers(record.metrics)}
        elif stage.kind is StageKind.INFER and stage.infer is not None:
            cases.append(Case(stage.name, stage.infer.precision, predictions_of(record)))
    return Evidence(losses, metrics, tuple(cases))
