"""PaddleDetection's figures that tipc's own readers (``tipc.metrics``) do not read.

Its eval prints pycocotools' summary for a COCO metric, `` Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all |
maxDets=100 ] = 0.412``: the first block's all-area AP is ``mAP``, its AP at IoU 0.50 ``AP50`` (a mask model's
second block is its masks'); a VOC metric prints ``mAP(0.50, 11point) = 81.23%``: ``AP50``, as a fraction like
COCO's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tipc.plan.model import StageKind
from tipc.suites.figures import NUMBER, marked_messages, reader

_COCO_AP = re.compile(
    rf"Average Precision\s+\(AP\) @\[ IoU=(?P<iou>[\d.:]+)\s*\| area=\s*all \| maxDets=\s*\d+ \] = (?P<value>{NUMBER})"
)
_VOC_MAP = re.compile(rf"mAP\((?P<iou>[\d.]+), \w+\) = (?P<value>{NUMBER})%")


def detection_eval(lines: Iterable[str]) -> dict[str, float]:
    """The first COCO summary's ``mAP`` and ``AP50``, or a VOC metric's ``AP50``."""
    found: dict[str, float] = {}
    for message in marked_messages(lines, "AP"):
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


FIGURES = reader({StageKind.EVAL: detection_eval})
