"""The report's predictions section: per infer case, its first images with what was predicted,
and the golden checks' verdicts.

Recognition shows text and score beside the image; detection draws the boxes as inline SVG over
an embedded thumbnail. A case whose every prediction is empty says so in words: that is the
symptom a green run hid. Predictions are read from each infer stage's own log (bounded, see
``tipc.metrics.predictions``); only this run's records are shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tipc.metrics.predictions import Prediction, read_predictions
from tipc.report.load import Roots, readable
from tipc.report.naming import StageKey, stage_key, stage_name
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


def image_view(p: Prediction, record: StageRecord, thumbs: _Thumbs, roots: Roots = None) -> ImageView:
    found = image_file(p.image, record.cwd, record.argv)
    shown = NOT_FOUND if found is None else thumbs.get(found) if readable(found, roots) else OUTSIDE
    thumb, scale = (None, 1.0) if isinstance(shown, NotShown) else shown
    boxes = tuple(_points(b, scale) for b in p.boxes or ()) if thumb else ()
    score = "" if p.score is None else f"{p.score:.4f}"
    why = shown.why if isinstance(shown, NotShown) else ""
    return ImageView(p.key, p.text, score, boxes, len(p.boxes or ()), p.empty, thumb, why)


def case_view(record: StageRecord, anchor: str, thumbs: _Thumbs, roots: Roots = None) -> CaseView | None:
    if not readable(record.log, roots):
        return None
    try:
        predictions = read_predictions(Path(record.log))
    except OSError:
        return None
    if not predictions:
        return None
    images = tuple(image_view(p, record, thumbs, roots) for p in predictions[:SHOWN])
    empty = sum(p.empty for p in predictions)
    return CaseView(anchor, record.chain, stage_name(record), len(predictions), empty, images)


def build_predictions(
    records: Sequence[StageRecord], anchors: Mapping[StageKey, str], roots: Roots = None
) -> PredictionsView | None:
    """None when the run has neither predictions nor golden checks (nothing to show)."""
    cases = []
    thumbs = _Thumbs()
    infers = [r for r in records if r.kind == "infer" and r.status.ran]
    for record in infers[:MAX_CASES]:
        view = case_view(record, anchors.get(stage_key(record), ""), thumbs, roots)
        if view is not None:
            cases.append(view)
    goldens = tuple(
        GoldenView(anchors.get(stage_key(r), ""), r.chain, r.status.value, r.reason, int(r.metrics.get("findings", 0)))
        for r in records
        if r.kind == "golden"
    )
    if not cases and not goldens:
        return None
    defs = tuple(d for d, _ in thumbs.defs.values())
    return PredictionsView(tuple(cases), goldens, max(0, len(infers) - MAX_CASES), defs)
