"""Which offline generator, if any, can make the data a training yml reads.

tipc draws three kinds of PaddleOCR ``SimpleDataSet`` data: text lines for recognition
(``<image>\\t<text>``), scenes with text regions for detection (``<image>\\t<json regions>``)
and text lines turned by a known angle for direction classification (``<image>\\t<angle>``).
Anything else (tables, key information, end-to-end, super-resolution, LMDB data sets,
Total-Text polygons…) is refused with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from tipc.dialects.paddleocr.prepare.trainyml import TrainYml


class Family(str, Enum):
    REC = "rec"
    DET = "det"
    CLS = "cls"


@dataclass(frozen=True, slots=True)
class Unsupported:
    reason: str  # e.g. "model_type 'table' (dataset PubTabDataSet)"


# The data set classes that read "<image path>\t<label>" lines, per family.
_READERS = {
    Family.REC: ("SimpleDataSet", "MultiScaleDataSet"),
    Family.DET: ("SimpleDataSet",),
    Family.CLS: ("SimpleDataSet",),
}
# The label encoder whose format the generator writes (recognition has many; all read text).
_ENCODER = {Family.DET: "DetLabelEncode", Family.CLS: "ClsLabelEncode"}


def classify(yml: TrainYml) -> Family | Unsupported:
    # An unnamed data set cannot be checked: the tools would stop on it, whatever the data.
    names = sorted({spec.name for spec in (yml.train, yml.eval) if spec is not None and spec.name})
    try:
        family = Family(yml.model_type)
    except ValueError:
        shown = f" (dataset {', '.join(names)})" if names else ""
        return Unsupported(f"model_type {yml.model_type!r}{shown}")
    readers = _READERS[family]
    odd = [name for name in names if name not in readers]
    if odd:
        return Unsupported(f"{family.value} data set {odd[0]!r} (expected {' or '.join(readers)})")
    if any(spec is not None and not spec.label_files for spec in (yml.train, yml.eval)):
        return Unsupported(f"{family.value} data set without label_file_list")
    encoder = _ENCODER.get(family)
    if encoder is not None and encoder not in yml.transforms:
        encoders = [name for name in yml.transforms if name.endswith("LabelEncode")]
        found = f"found {', '.join(dict.fromkeys(encoders))}" if encoders else "found none"
        return Unsupported(f"{family.value} labels read by {encoder} only ({found})")
    if family is Family.CLS and not all(map(_is_right_angle, yml.label_list)):
        return Unsupported(f"cls labels {list(yml.label_list)} (expected angles that are multiples of 90)")
    return family


def _is_right_angle(label: str) -> bool:
    return label.lstrip("-").isdigit() and int(label) % 90 == 0
