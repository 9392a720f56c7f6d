"""The figures the other suites' logs hold that tipc's own readers (``tipc.metrics``) do not: each dialect names
its reader (``Dialect.figures``), which reads only its stage's part of the log.

* PaddleClas's eval (``ppcls/engine/evaluation``) ends with ``[Eval][Epoch 0][Avg]CELoss: 6.90889, loss: 6.90889,
  top1: 0.00100, top5: 0.00500``: each ``name: number`` of the last such line (``top1`` is its main figure).
* PaddleDetection's eval prints pycocotools' summary for a COCO metric, `` Average Precision  (AP) @[ IoU=0.50:0.95 |
  area=   all | maxDets=100 ] = 0.412``: the first block's all-area AP is ``mAP``, its AP at IoU 0.50 ``AP50`` (a
  mask model's second block is its masks'); a VOC metric prints ``mAP(0.50, 11point) = 81.23%``: ``AP50``, as a
  fraction like COCO's.
* PaddleSeg's eval (``paddleseg/core/val.py``) prints ``[EVAL] #Images: 500 mIoU: 0.3541 Acc: 0.8711 Kappa: 0.8322
  Dice: 0.4523``: ``mIoU``, ``Acc``, ``Kappa``, ``Dice`` of the last such line; its trainer's step lines carry
  ``batch_cost`` and ``reader_cost`` (seconds a step): their means over the logged steps after the first, as
  ``ips`` is taken (``tipc.metrics.trainlog``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from tipc.metrics.logfile import log_lines
from tipc.metrics.logtext import messages_of_lines
from tipc.metrics.trainlog import step_values_of_lines
from tipc.plan.model import Stage, StageKind

_NUMBER = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|nan|inf"
_PAIR = re.compile(rf"([A-Za-z_][\w.]*): ({_NUMBER})(?=,|\s|$)")
_CLAS_AVG = re.compile(r"\[Eval\]\[Epoch \d+\]\[Avg\]")
_COCO_AP = re.compile(
    rf"Average Precision\s+\(AP\) @\[ IoU=(?P<iou>[\d.:]+)\s*\| area=\s*all \| maxDets=\s*\d+ \] = (?P<value>{_NUMBER})"
)
_VOC_MAP = re.compile(rf"mAP\((?P<iou>[\d.]+), \w+\) = (?P<value>{_NUMBER})%")
_SEG_EVAL = re.compile(r"\[EVAL\] #Images: \d+ ")
_SEG_TIMINGS = ("batch_cost", "reader_cost")


def _messages(lines: Iterable[str], mark: str) -> Iterable[str]:
    """The messages of the lines that hold ``mark`` (a cheap test before any pattern)."""
    return (message for _, message in messages_of_lines(line for line in lines if mark in line))


def _last_pairs(lines: Iterable[str], mark: str, head: re.Pattern[str]) -> dict[str, float]:
    """The ``name: number`` pairs after ``head`` on the last line that has it (``mark``: a substring it holds)."""
    found: dict[str, float] = {}
    for message in _messages(lines, mark):
        match = head.search(message)
        if match is not None:
            found = {name: float(value) for name, value in _PAIR.findall(message[match.end() :])}
    return found


def classification_eval(lines: Iterable[str]) -> dict[str, float]:
    """PaddleClas: the figures of the last ``[Eval][Epoch N][Avg]`` line."""
    return _last_pairs(lines, "][Avg]", _CLAS_AVG)


def detection_eval(lines: Iterable[str]) -> dict[str, float]:
    """PaddleDetection: the first COCO summary's ``mAP`` and ``AP50``, or a VOC metric's ``AP50``."""
    found: dict[str, float] = {}
    for message in _messages(lines, "AP"):
        coco = _COCO_AP.search(message)
        if coco is not None:
            name = {"0.50:0.95": "mAP", "0.50": "AP50"}.get(coco["iou"])
            if name is not None:
                found.setdefault(name, float(coco["value"]))
            continue
        voc = _VOC_MAP.search(message)
        if voc is not None and voc["iou"] == "0.50":
            found.setdefault("AP50", float(voc["value"]) / 100)
    return found


def segmentation_eval(lines: Iterable[str]) -> dict[str, float]:
    """PaddleSeg: the figures of the last ``[EVAL] #Images: N mIoU: …`` line."""
    return _last_pairs(lines, "[EVAL] #Images: ", _SEG_EVAL)


def segmentation_timings(lines: Iterable[str]) -> dict[str, float]:
    """PaddleSeg's trainer: the mean ``batch_cost`` and ``reader_cost`` of the logged steps after the first
    (the only step's when one was logged)."""
    seen: dict[str, list[float]] = {name: [] for name in _SEG_TIMINGS}
    for values in step_values_of_lines(lines):
        for name in _SEG_TIMINGS:
            if name in values:
                seen[name].append(values[name])
    return {name: sum(v[1:] or v) / len(v[1:] or v) for name, v in seen.items() if v}


Reader = Callable[[Iterable[str]], dict[str, float]]


def reader(by_kind: Mapping[StageKind, Reader]) -> Callable[[Stage, Path, int, int | None], dict[str, Any]]:
    """A dialect's ``figures``: the reader of the stage's kind over its part of the log."""

    def figures(stage: Stage, log: Path, since: int, until: int | None) -> dict[str, Any]:
        read = by_kind.get(stage.kind)
        return {} if read is None else dict(read(log_lines(log, since, until)))

    return figures


CLASSIFICATION = reader({StageKind.EVAL: classification_eval})
DETECTION = reader({StageKind.EVAL: detection_eval})
SEGMENTATION = reader({StageKind.EVAL: segmentation_eval, StageKind.TRAIN: segmentation_timings})
