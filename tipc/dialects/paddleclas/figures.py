"""PaddleClas's figures that tipc's own readers (``tipc.metrics``) do not read.

Its eval (``ppcls/engine/evaluation``) ends with ``[Eval][Epoch 0][Avg]CELoss: 6.90889, loss: 6.90889, top1: 0.00100,
top5: 0.00500``: each ``name: number`` of the last such line (``top1`` is its main figure).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tipc.plan.model import StageKind
from tipc.suites.figures import last_pairs, reader

_AVG = re.compile(r"\[Eval\]\[Epoch \d+\]\[Avg\]")


def classification_eval(lines: Iterable[str]) -> dict[str, float]:
    """The figures of the last ``[Eval][Epoch N][Avg]`` line."""
    return last_pairs(lines, "][Avg]", _AVG)


FIGURES = reader({StageKind.EVAL: classification_eval})
