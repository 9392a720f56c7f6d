"""What PaddleSeg's predictor predicted, read as tipc's ``Prediction``.

``deploy/python/infer.py`` prints nothing per image: it saves each mask as a palette PNG, ``<save_dir>/<image
stem>.png``, whose pixel values are the class ids. A mask is summarised by its shape and each class's share of its
pixels; only masks written since the stage started count (the folder is the same every night). Pure but for
reading the masks; at most ``LIMIT`` predictions per stage.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from tipc.files import image, read
from tipc.metrics.predictions import LIMIT, MaskSummary, Prediction
from tipc.results.records import StageRecord

SAVE_DIR_FLAG = "--save_dir"  # PaddleSeg's predictor: where its masks go
MASK_NOT_READ = "mask not read: "  # what a mask that could not be decoded predicted, and why
CLOCK_SLACK = 1.0  # seconds: a file system's coarse mtime may date a mask just before the stage's start


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
