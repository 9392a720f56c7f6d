"""What PaddleVideo's ``tools/predict.py`` predicted, from its log.

For each input it prints ``Current video file: <path>``, then ``top-1 class: <id>`` and ``top-1 score: <score>``
on lines of their own (the lines the suite's ``compare_results.py`` checks against its ``results/``). A
localisation model (BMN) prints segment dicts instead, which read as no prediction. Pure but for the log read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from tipc import Prediction, Ranked, StageRecord, log_lines
from tipc.layout import PREDICTION_LIMIT, messages_of_lines

_NUMBER = r"[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"
_FILE = re.compile(r"^\s*Current video file: (?P<file>.+?)\s*:?\s*$")
_CLASS = re.compile(r"^\s*top-1 class: (?P<id>-?\d+)\s*$")
_SCORE = re.compile(rf"^\s*top-1 score: (?P<score>{_NUMBER})\s*$")


def top1_lines(lines: Iterable[str], limit: int = PREDICTION_LIMIT) -> tuple[Prediction, ...]:
    """Each input's top-1 class and score, in log order; an input without both reads as nothing."""
    found: list[Prediction] = []
    video, class_id = "", None
    for _, message in messages_of_lines(lines):
        if (named := _FILE.match(message)) is not None:
            video, class_id = named["file"], None
        elif (ranked := _CLASS.match(message)) is not None and video:
            class_id = int(ranked["id"])
        elif (scored := _SCORE.match(message)) is not None and video and class_id is not None:
            found.append(Prediction(video, top_k=(Ranked(class_id, float(scored["score"])),)))
            video, class_id = "", None
            if len(found) >= limit:
                break
    return tuple(found)


def top1(record: StageRecord) -> tuple[Prediction, ...]:
    return top1_lines(log_lines(Path(record.log)))
