"""The golden types: expected outcomes of a model in a mode at one inference precision.

Tolerances are absolute: a recognition, classification or detection score, an eval metric, a box
coordinate in pixels, a class's share of a segmentation mask's pixels.
fp32 is tight; fp16 and int8 are looser by default (kernels differ), and every golden file
may set its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tipc.metrics.predictions import Prediction


@dataclass(frozen=True, slots=True)
class Tolerance:
    score: float  # recognition, classification or detection score, absolute
    metric: float  # eval metric, absolute
    box: float  # box coordinate, pixels
    fraction: float = 1e-3  # a class's share of a mask's pixels, absolute

    def merged(self, given: Mapping[str, float]) -> Tolerance:
        return Tolerance(**{name: float(given.get(name, getattr(self, name))) for name in TOLERANCE_FIELDS})


TOLERANCE_FIELDS = ("score", "metric", "box", "fraction")
DEFAULT_TOLERANCES: Mapping[str, Tolerance] = {
    "fp32": Tolerance(score=1e-3, metric=1e-3, box=1.0, fraction=1e-3),
    "fp16": Tolerance(score=2e-2, metric=2e-2, box=3.0, fraction=1e-2),
    "bf16": Tolerance(score=2e-2, metric=2e-2, box=3.0, fraction=1e-2),
    "int8": Tolerance(score=5e-2, metric=5e-2, box=5.0, fraction=2e-2),
}


def default_tolerance(precision: str) -> Tolerance:
    return DEFAULT_TOLERANCES.get(precision, DEFAULT_TOLERANCES["int8"])


@dataclass(frozen=True, slots=True)
class TrainFacts:
    """What a healthy training shows: every logged loss finite (always checked), the last loss
    below the first by ``loss_drop`` (a fraction of the first), and eval metrics above floors
    (whole-train modes: a model that learnt)."""

    loss_drop: float = 0.0
    metric_floor: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Golden:
    source: str  # the file it was read from
    precision: str
    tolerance: Tolerance
    predictions: Mapping[str, Prediction] = field(default_factory=dict)  # by image base name
    eval: Mapping[str, float] = field(default_factory=dict)  # expected eval metrics
    train: TrainFacts | None = None  # None: training facts are not checked (PaddleOCR's files)


@dataclass(frozen=True, slots=True)
class Finding:
    """One way this run differs from its golden; names what, expected, found and the tolerance."""

    subject: str  # "train", "eval", or an infer stage's name
    figure: str  # an image name, a metric, "loss"
    expected: str
    found: str
    tolerance: str = ""

    def text(self) -> str:
        within = f" (tolerance {self.tolerance})" if self.tolerance else ""
        return f"{self.subject} {self.figure}: expected {self.expected}, found {self.found}{within}"
