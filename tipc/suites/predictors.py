"""What the other suites' predictors predicted, read as tipc's ``Prediction`` (each dialect names its reader).

* PaddleClas ``deploy/python/predict_cls.py`` prints one line per image, its file name, a tab, then the
  top-k: ``class id(s): [3, 1], score(s): [0.91, 0.05], label_name(s): ['dog', 'cat']`` (scores at two
  decimals; without a class list only ``score(s): [...]``).
* PaddleDetection ``deploy/python/infer.py`` (``--save_images``, its default) prints each kept box of an
  image as ``class_id:0, confidence:0.9123, left_top:[1.00,2.00],right_bottom:[3.00,4.00]``, then
  ``save result to: <output dir>/<image name>`` once the image is drawn: the boxes above belong to it.
* PaddleSeg ``deploy/python/infer.py`` prints nothing per image: it saves each mask as a palette PNG,
  ``<save_dir>/<image stem>.png``, whose pixel values are the class ids. A mask is summarised by its
  shape and each class's share of its pixels; only masks written since the stage started count (the
  folder is the same every night).

Pure but for reading the log or the masks; at most ``LIMIT`` predictions per stage, as for PaddleOCR's.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from tipc.files import image, read
from tipc.metrics.logfile import log_lines
from tipc.metrics.logtext import messages_of_lines
from tipc.metrics.predictions import LIMIT, Detected, MaskSummary, Prediction, Ranked
from tipc.results.records import StageRecord

_LIST = r"\[[^\]]*\]"
_TOP_K = re.compile(
    rf"^(?P<image>[^\t]+):\t(?:class id\(s\): (?P<ids>{_LIST}), )?score\(s\): (?P<scores>{_LIST})"
    rf"(?:, label_name\(s\): (?P<labels>\[.*\]))?\s*$"
)
_NUMBER = r"[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"
_OBJECT = re.compile(
    rf"^class_id:(?P<cls>-?\d+), confidence:(?P<score>{_NUMBER}), left_top:\[(?P<x0>{_NUMBER}),(?P<y0>{_NUMBER})\],"
    rf"\s*right_bottom:\[(?P<x1>{_NUMBER}),(?P<y1>{_NUMBER})\]\s*$"
)
_SAVED = re.compile(r"^save result to: (?P<image>.+?)\s*$")
NO_CLASS_ID = -1  # a top-k printed without class ids (a postprocess that gives scores only)
SAVE_DIR_FLAG = "--save_dir"  # PaddleSeg's predictor: where its masks go
MASK_NOT_READ = "mask not read: "  # what a mask that could not be decoded predicted, and why
CLOCK_SLACK = 1.0  # seconds: a file system's coarse mtime may date a mask just before the stage's start


def _literal_list(text: str) -> list[object] | None:
    try:
        value = ast.literal_eval(text)  # a list literal only: the regex saw to that
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, list) else None


def _numbers(values: list[object], kind: tuple[type, ...]) -> bool:
    return all(isinstance(v, kind) and not isinstance(v, bool) for v in values)


def _top_k(message: str) -> Prediction | None:
    match = _TOP_K.match(message)
    if match is None:
        return None
    scores = _literal_list(match["scores"])
    ids: list[object] | None = _literal_list(match["ids"]) if match["ids"] else [NO_CLASS_ID] * len(scores or ())
    labels = _literal_list(match["labels"]) if match["labels"] else []
    if scores is None or ids is None or labels is None or len(ids) != len(scores):
        return None
    if not (_numbers(scores, (int, float)) and _numbers(ids, (int,))):
        return None
    names = [str(v) for v in labels] + [""] * len(scores)
    ranked = tuple(Ranked(int(str(i)), float(str(s)), n) for i, s, n in zip(ids, scores, names, strict=False))
    return Prediction(match["image"].strip(), top_k=ranked)


def classification_lines(lines: Iterable[str], limit: int = LIMIT) -> tuple[Prediction, ...]:
    """PaddleClas's ``predict_cls.py`` lines: one top-k per image, in log order."""
    found: list[Prediction] = []
    for _, message in messages_of_lines(line for line in lines if "score(s): [" in line):
        prediction = _top_k(message)
        if prediction is not None:
            found.append(prediction)
            if len(found) >= limit:
                break
    return tuple(found)


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


def mask_summary(path: Path) -> MaskSummary | None:
    """A mask PNG (palette or grey: a pixel's value is its class id) summarised; None when it is a
    picture of another mode. ``NotAnImage`` says why it could not be decoded (a bomb, a FIFO, ...)."""
    with image.opened(path) as mask:
        if mask.mode not in ("P", "L"):
            return None
        counts = mask.histogram()[:256]
        width, height = mask.size
    total = width * height
    fractions = tuple((cls, count / total) for cls, count in enumerate(counts) if count) if total else ()
    return MaskSummary(height, width, fractions)


def _save_dir(record: StageRecord) -> Path | None:
    argv = list(record.argv)
    for index, arg in enumerate(argv):
        if arg.startswith(SAVE_DIR_FLAG + "="):
            value = arg.split("=", 1)[1]
        elif arg == SAVE_DIR_FLAG and index + 1 < len(argv):
            value = argv[index + 1]
        else:
            continue
        return Path(record.cwd or ".") / value
    return None


def _fresh_masks(folder: Path, since: float) -> Iterator[Path]:
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return
    for path in entries:
        try:
            fresh = path.suffix.lower() == ".png" and path.is_file() and path.stat().st_mtime >= since - CLOCK_SLACK
        except OSError:
            continue
        if fresh:
            yield path


def segmentation_masks(record: StageRecord, limit: int = LIMIT) -> tuple[Prediction, ...]:
    """PaddleSeg's ``infer.py`` masks in the stage's ``--save_dir``, those written since the stage
    started. Only a ``--save_dir`` in the folder that holds the stage's log (the plan puts it there) is
    read: a record is input, and its argv must not make a report read PNGs anywhere else. A mask that
    cannot be decoded is a prediction that says why, in place of its class shares."""
    folder = _save_dir(record)
    if folder is None or not record.log or not read.inside(folder, [Path(record.log).parent]):
        return ()
    found = []
    for path in _fresh_masks(folder, record.start):
        try:
            summary = mask_summary(path)
        except image.NotAnImage as exc:
            found.append(Prediction(str(path), text=f"{MASK_NOT_READ}{exc.why}"))
        else:
            if summary is None:
                continue
            found.append(Prediction(str(path), mask=summary))
        if len(found) >= limit:
            break
    return tuple(found)


def classification(record: StageRecord) -> tuple[Prediction, ...]:
    return classification_lines(log_lines(Path(record.log)))


def detection(record: StageRecord) -> tuple[Prediction, ...]:
    return detection_lines(log_lines(Path(record.log)))
