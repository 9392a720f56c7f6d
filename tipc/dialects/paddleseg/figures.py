"""PaddleSeg's figures that tipc's own readers (``tipc.metrics``) do not read.

Its eval (``paddleseg/core/val.py``) prints ``[EVAL] #Images: 500 mIoU: 0.3541 Acc: 0.8711 Kappa: 0.8322 Dice:
0.4523``: ``mIoU``, ``Acc``, ``Kappa``, ``Dice`` of the last such line; its trainer's step lines carry ``batch_cost``
and ``reader_cost`` (seconds a step): their means over the logged steps after the first, as ``ips`` is taken
(``tipc.metrics.trainlog``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tipc.metrics.trainlog import step_values_of_lines
from tipc.plan.model import StageKind
from tipc.suites.figures import last_pairs, reader

_EVAL = re.compile(r"\[EVAL\] #Images: \d+ ")
_TIMINGS = ("batch_cost", "reader_cost")


def segmentation_eval(lines: Iterable[str]) -> dict[str, float]:
    """The figures of the last ``[EVAL] #Images: N mIoU: …`` line."""
    return last_pairs(lines, "[EVAL] #Images: ", _EVAL)


def segmentation_timings(lines: Iterable[str]) -> dict[str, float]:
    """The trainer's mean ``batch_cost`` and ``reader_cost`` of the logged steps after the first
    (the only step's when one was logged)."""
    seen: dict[str, list[float]] = {name: [] for name in _TIMINGS}
    for values in step_values_of_lines(lines):
        for name in _TIMINGS:
            if name in values:
                seen[name].append(values[name])
    return {name: sum(v[1:] or v) / len(v[1:] or v) for name, v in seen.items() if v}


FIGURES = reader({StageKind.EVAL: segmentation_eval, StageKind.TRAIN: segmentation_timings})
