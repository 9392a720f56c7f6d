"""The report's predictions section: per infer case, its first images with what was predicted,
and the golden checks' verdicts.

Recognition shows text and score beside the image; detection draws the boxes as inline SVG over
an embedded thumbnail; a classification shows its top-k (label or class id, and score), a
segmentation mask its shape and each class's share of the pixels. A case whose every prediction
is empty says so in words: that is the symptom a green run hid. Predictions are read as the
golden check reads them (each infer stage's own log, or what its suite's predictor saved:
``tipc.golden.evidence.predictions_of``, bounded); only this run's records are shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tipc.golden.evidence import predictions_of
from tipc.history.store import StageKey
from tipc.metrics.predictions import Box, Prediction
from tipc.report.load import Roots, readable
from tipc.report.naming import stage_key, stage_name
from tipc.report.thumbs import NOT_FOUND, OUTSIDE, NotShown, image_file, thumbnail
from tipc.results.records import StageRecord

SHOWN = 6  # images per case
MAX_CASES = 24  # cases with images; later ones are counted, not shown


@dataclass(frozen=True, slots=True)
class ThumbDef:
    """A thumbnail defined once in the page (an SVG ``<image id>``), shown by every case that read it."""

    id: str
    uri: str
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class ImageView:
    name: str
    text: str | None  # recognition
    score: str
    boxes: tuple[str, ...]  # SVG polygon points, in thumbnail pixels (detection)
    box_count: int
    empty: bool
    thumb: ThumbDef | None
    not_shown: str  # why there is no thumbnail, "" when there is one (a bomb, a FIFO, a path outside the run)


@dataclass(frozen=True, slots=True)
class CaseView:
    anchor: str
    chain: str
    name: str
    total: int
    empty: int
    images: tuple[ImageView, ...]

    @property
    def all_empty(self) -> bool:
        return self.total > 0 and self.empty == self.total


@dataclass(frozen=True, slots=True)
class GoldenView:
    anchor: str
    chain: str
    status: str
    reason: str
    findings: int


@dataclass(frozen=True, slots=True)
class PredictionsView:
    cases: tuple[CaseView, ...]
    goldens: tuple[GoldenView, ...]
    omitted: int  # infer cases not shown (over MAX_CASES)
    thumbs: tuple[ThumbDef, ...] = ()


class _Thumbs:
    """Each image file's thumbnail, numbered in the order the page first shows it."""

    def __init__(self) -> None:
        self.defs: dict[Path, tuple[ThumbDef, float]] = {}

    def get(self, path: Path) -> tuple[ThumbDef, float] | NotShown:
        if path not in self.defs:
            thumb = thumbnail(path)
            if isinstance(thumb, NotShown):
                return thumb
            self.defs[path] = ThumbDef(f"thumb-{len(self.defs)}", thumb.uri, thumb.width, thumb.height), thumb.scale
        return self.defs[path]


def _points(box: tuple[tuple[float, float], ...], scale: float) -> str:
    return " ".join(f"{x * scale:.1f},{y * scale:.1f}" for x, y in box)


def _shapes(p: Prediction) -> tuple[Box, ...]:
    """Text boxes as they are; detected objects' boxes as their four corners."""
    corners = tuple(((x0, y0), (x1, y0), (x1, y1), (x0, y1)) for x0, y0, x1, y1 in (o.box for o in p.objects or ()))
    return p.boxes or corners


def _text(p: Prediction) -> str | None:
    """What is shown in words: a recognised text, a top-k, a mask's class shares (None: boxes only)."""
    if p.top_k is not None:
        return ", ".join(f"{r.label or f'class {r.class_id}'} {r.score:.2f}" for r in p.top_k)
    if p.mask is not None:
        shares = ", ".join(f"class {c} {f:.1%}" for c, f in p.mask.fractions)
        return f"{p.mask.height}x{p.mask.width} mask: {shares}"
    return p.text


def image_view(p: Prediction, record: StageRecord, thumbs: _Thumbs, roots: Roots = None) -> ImageView:
    found = image_file(p.image, record.cwd, record.argv)
    shown = NOT_FOUND if found is None else thumbs.get(found) if readable(found, roots) else OUTSIDE
    thumb, scale = (None, 1.0) if isinstance(shown, NotShown) else shown
    shapes = _shapes(p)
    boxes = tuple(_points(b, scale) for b in shapes) if thumb else ()
    score = "" if p.score is None else f"{p.score:.4f}"
    why = shown.why if isinstance(shown, NotShown) else ""
    return ImageView(p.key, _text(p), score, boxes, len(shapes), p.empty, thumb, why)


def case_view(record: StageRecord, anchor: str, thumbs: _Thumbs, roots: Roots = None) -> CaseView | None:
    if not readable(record.log, roots):
        return None
    try:
        predictions = predictions_of(record)
    except OSError:
        return None
    if not predictions:
        return None
    images = tuple(image_view(p, record, thumbs, roots) for p in predictions[:SHOWN])
    empty = sum(p.empty for p in predictions)
    return CaseView(anchor, record.chain, stage_name(record), len(predictions), empty, images)


class Gathered:
    """The predictions section, gathered one record at a time: the first ``MAX_CASES`` infer stages
    shown, the others counted, every golden check. A report gathers it while it reads the records for
    another part of the page."""

    def __init__(self, anchors: Mapping[StageKey, str], roots: Roots = None) -> None:
        self.anchors, self.roots = anchors, roots
        self.cases: list[CaseView] = []
        self.goldens: list[GoldenView] = []
        self.thumbs = _Thumbs()
        self.infers = 0

    def add(self, r: StageRecord) -> None:
        """``r``: one of this run's own records (not carried over)."""
        if r.kind == "infer" and r.status.ran:
            self.infers += 1
            if self.infers <= MAX_CASES and (view := case_view(r, self.anchor(r), self.thumbs, self.roots)):
                self.cases.append(view)
        elif r.kind == "golden":
            findings = int(r.metrics.get("findings", 0))
            self.goldens.append(GoldenView(self.anchor(r), r.chain, r.status.value, r.reason, findings))

    def anchor(self, r: StageRecord) -> str:
        return self.anchors.get(stage_key(r), "")

    def view(self) -> PredictionsView | None:
        """None when the run has neither predictions nor golden checks (nothing to show)."""
        if not self.cases and not self.goldens:
            return None
        defs = tuple(d for d, _ in self.thumbs.defs.values())
        return PredictionsView(tuple(self.cases), tuple(self.goldens), max(0, self.infers - MAX_CASES), defs)
