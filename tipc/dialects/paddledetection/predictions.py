"""What PaddleDetection's predictor predicted, read as tipc's ``Prediction``.

``deploy/python/infer.py`` (``--save_images``, its default) prints each kept box of an image as
``class_id:0, confidence:0.9123, left_top:[1.00,2.00],right_bottom:[3.00,4.00]``, then ``save result to: <output
dir>/<image name>`` once the image is drawn: the boxes above belong to it. Pure but for reading the log; at most
``LIMIT`` predictions per stage.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from tipc.metrics.logfile import log_lines
from tipc.metrics.logtext import messages_of_lines
from tipc.metrics.predictions import LIMIT, Detected, Prediction
from tipc.results.records import StageRecord

_NUMBER = r"[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"
_OBJECT = re.compile(
    rf"^class_id:(?P<cls>-?\d+), confidence:(?P<score>{_NUMBER}), left_top:\[(?P<x0>{_NUMBER}),(?P<y0>{_NUMBER})\],"
    rf"\s*right_bottom:\[(?P<x1>{_NUMBER}),(?P<y1>{_NUMBER})\]\s*$"
)
_SAVED = re.compile(r"^save result to: (?P<image>.+?)\s*$")


def detection_lines(lines: Iterable[str], limit: int = LIMIT) -> tuple[Prediction, ...]:
    """PaddleDetection's ``infer.py`` lines: each image's boxes, closed by its ``save result to:`` line."""
    found: list[Prediction] = []
    pending: list[Detected] = []
    for _, message in messages_of_lines(line for line in lines if "class_id:" in line or "save result to: " in line):
        text = message.strip()
        box = _OBJECT.match(text)
        if box is not None:
            corners = (float(box["x0"]), float(box["y0"]), float(box["x1"]), float(box["y1"]))
            pending.append(Detected(int(box["cls"]), float(box["score"]), corners))
            continue
        saved = _SAVED.match(text)
        if saved is not None:
            found.append(Prediction(saved["image"], objects=tuple(pending)))
            pending = []
            if len(found) >= limit:
                break
    return tuple(found)


def detection(record: StageRecord) -> tuple[Prediction, ...]:
    return detection_lines(log_lines(Path(record.log)))
