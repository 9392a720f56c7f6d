"""What a predictor predicted, per image, from the lines its log holds.

Two shapes are read, the ones PaddleOCR's predictors print and its ``compare_results.py`` greps:

* recognition: ``Predicts of <image path>:('<text>', <score>)`` (the score may be printed as
  ``np.float32(0.9)`` by numpy 2);
* detection: ``<image name>\\t<json boxes>``, each box a list of ``[x, y]`` points.

The other suites' predictors print or save other shapes (classification top-k, detection objects,
segmentation masks): their dialects read them (``tipc.dialects.<suite>.predictions``) into the same type.

Images are keyed by their base name, as ``compare_results.py`` keys them, so that a golden
survives a checkout moved elsewhere. The log is streamed and at most ``limit`` predictions are
kept: memory does not grow with a predictor's log. Pure but for reading the file.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path, PurePosixPath

from .logfile import log_lines
from .logtext import messages_of_lines

LIMIT = 10_000  # predictions kept per log; a golden names far fewer images

Point = tuple[float, float]
Box = tuple[Point, ...]

_REC = re.compile(
    r"Predicts of (?P<path>.+?):\(\s*(?P<text>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\s*,\s*"
    r"(?:np\.float\d+\()?(?P<score>[-+0-9.eEnaif]+)\)?\s*\)\s*$"
)
_DET = re.compile(r"(?P<path>[^\t]+\.(?:jpe?g|png|bmp|tiff?|gif))\t(?P<boxes>\[.*\])\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Ranked:
    """One class of a classification's top-k."""

    class_id: int
    score: float
    label: str = ""  # the label name, when the predictor has a class list


@dataclass(frozen=True, slots=True)
class Detected:
    """One detected object: its class, confidence and box (x_min, y_min, x_max, y_max, in pixels)."""

    class_id: int
    score: float
    box: tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class MaskSummary:
    """A segmentation mask summarised: its shape and each class's share of its pixels."""

    height: int
    width: int
    fractions: tuple[tuple[int, float], ...]  # (class id, share), by class id; classes with no pixel left out


@dataclass(frozen=True, slots=True)
class Prediction:
    """One image's prediction: ``text``/``score`` for recognition, ``boxes`` for text detection, ``top_k``
    for classification, ``objects`` for object detection, ``mask`` for segmentation."""

    image: str  # the path as the log spells it
    text: str | None = None
    score: float | None = None
    boxes: tuple[Box, ...] | None = None
    top_k: tuple[Ranked, ...] | None = None
    objects: tuple[Detected, ...] | None = None
    mask: MaskSummary | None = None

    @property
    def key(self) -> str:
        """The image's base name: what goldens are keyed by."""
        return image_key(self.image)

    @property
    def empty(self) -> bool:
        """Nothing recognised, detected or classified: the symptom a green run must not hide."""
        for found in (self.boxes, self.objects, self.top_k):
            if found is not None:
                return not found
        if self.mask is not None:
            return not self.mask.fractions
        return not self.text


def image_key(path: str) -> str:
    return PurePosixPath(path.replace("\\", "/")).name


def parse_boxes(value: object) -> tuple[Box, ...] | None:
    """``[[[x, y], ...], ...]`` as boxes; None when ``value`` has another shape."""
    if not isinstance(value, list):
        return None
    boxes = []
    for box in value:
        if not isinstance(box, list):
            return None
        points = []
        for point in box:
            ok = isinstance(point, list) and len(point) == 2
            if not ok or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in point):
                return None
            points.append((float(point[0]), float(point[1])))
        boxes.append(tuple(points))
    return tuple(boxes)


def _unquoted(literal: str) -> str:
    """The value of a quoted string literal (the regex saw to that): its inside as it stands when it
    holds no escape (most do: parsing each, a predictor's log of thousands of lines costs milliseconds)."""
    return literal[1:-1] if "\\" not in literal else str(ast.literal_eval(literal))


def _recognition(message: str) -> Prediction | None:
    match = _REC.search(message)
    if match is None:
        return None
    try:
        text = _unquoted(match["text"])
        score = float(match["score"])
    except (ValueError, SyntaxError):
        return None
    return Prediction(match["path"].strip(), text=str(text), score=score if math.isfinite(score) else math.nan)


def _detection(message: str) -> Prediction | None:
    match = _DET.search(message.strip())
    if match is None:
        return None
    try:
        boxes = parse_boxes(json.loads(match["boxes"]))
    except ValueError:
        return None
    return None if boxes is None else Prediction(match["path"].strip(), boxes=boxes)


# Every line a prediction is read from holds one of these: a log without any holds none.
PREDICTS, TAB = "Predicts of ", "\t"
MARKERS = (PREDICTS, TAB)


def iter_predictions(lines: Iterable[str]) -> Iterator[Prediction]:
    """Every prediction of ``lines`` in log order, one at a time: a reader may stop at any one."""
    # Most of a log is other lines: a substring test first keeps the regexes off them.
    candidates = (line for line in lines if PREDICTS in line or TAB in line)
    for _, message in messages_of_lines(candidates):
        prediction = _recognition(message) or _detection(message)
        if prediction is not None:
            yield prediction


def predictions_of_lines(lines: Iterable[str], limit: int = LIMIT) -> tuple[Prediction, ...]:
    """Every prediction of ``lines`` in log order, up to ``limit``."""
    return tuple(islice(iter_predictions(lines), limit))


def read_predictions(path: Path, since: int = 0, limit: int = LIMIT) -> tuple[Prediction, ...]:
    """``predictions_of_lines`` of a log file from byte ``since``, streamed."""
    return predictions_of_lines(log_lines(path, since), limit)
