"""A golden against this run's evidence: the findings, and notes that are not findings. Pure.

Training facts come first (a loss that went to NaN explains every later difference), then the
eval metrics, then each inference case against the golden of its precision. Images are matched
by base name; an image the golden names and the case did not predict is a finding, images the
golden does not name are not judged.

Per kind of prediction: a recognised text equal and its score within the tolerance; text boxes
paired in order, each corner within the box tolerance; a classification's top-k with the same class
ids (and labels) in the same order, scores within the tolerance; detected objects each paired with
the nearest object of its class whose box is within the box tolerance (their order may change when
two scores are close), scores within the tolerance, none left over on either side; a segmentation
mask of the same shape, each class's share of the pixels within the fraction tolerance.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from tipc.golden.model import Finding, Golden, Tolerance, TrainFacts
from tipc.metrics.predictions import Box, Detected, MaskSummary, Prediction, Ranked


@dataclass(frozen=True, slots=True)
class Case:
    """One inference stage of this run: its name, precision and predictions."""

    name: str
    precision: str
    predictions: tuple[Prediction, ...]


@dataclass(frozen=True, slots=True)
class Evidence:
    losses: tuple[float, ...] | None = None  # every logged loss of this run's training; None: no train stage
    eval: Mapping[str, float] | None = None  # None: no eval stage
    cases: tuple[Case, ...] = ()


@dataclass(frozen=True, slots=True)
class GoldenVerdict:
    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()
    goldens: tuple[str, ...] = ()  # the files judged against
    unjudged: tuple[str, ...] = ()  # precisions without a golden
    empty_cases: tuple[str, ...] = ()  # cases whose every prediction is empty


def _num(value: float) -> str:
    return f"{value:.6g}"


def train_findings(facts: TrainFacts, losses: tuple[float, ...]) -> list[Finding]:
    if not losses:
        return [Finding("train", "loss", "logged losses", "no loss line in this run's training log")]
    bad = next((i for i, loss in enumerate(losses, 1) if not math.isfinite(loss)), None)
    if bad is not None:
        return [Finding("train", f"loss at logged step {bad}", "a finite loss", _num(losses[bad - 1]))]
    first, last = losses[0], losses[-1]
    ceiling = first - facts.loss_drop * abs(first)
    if facts.loss_drop > 0 and not last <= ceiling:
        return [
            Finding(
                "train",
                "last loss",
                f"<= {_num(ceiling)} (first {_num(first)} less {facts.loss_drop:.0%})",
                _num(last),
            )
        ]
    return []


def eval_findings(golden: Golden, found: Mapping[str, float]) -> list[Finding]:
    out = []
    tol = golden.tolerance.metric
    for name, expected in golden.eval.items():
        value = found.get(name)
        if value is None:
            out.append(Finding("eval", name, _num(expected), "no such metric in this run's eval log"))
        elif not abs(value - expected) <= tol:
            out.append(Finding("eval", name, _num(expected), _num(value), f"±{_num(tol)}"))
    floors = golden.train.metric_floor if golden.train else {}
    for name, floor in floors.items():
        value = found.get(name)
        if value is None or not value >= floor:
            shown = "no such metric in this run's eval log" if value is None else _num(value)
            out.append(Finding("eval", name, f">= {_num(floor)} (floor)", shown))
    return out


def box_distance(a: tuple[Box, ...], b: tuple[Box, ...]) -> float:
    """The largest coordinate difference between boxes paired in order (inf: shapes differ)."""
    if len(a) != len(b) or any(len(x) != len(y) for x, y in zip(a, b, strict=True)):
        return math.inf
    pairs = (zip(u, v, strict=True) for x, y in zip(a, b, strict=True) for u, v in zip(x, y, strict=True))
    return max((abs(p - q) for pair in pairs for p, q in pair), default=0.0)


def _text_findings(case: str, golden: Golden, expected: Prediction, found: Prediction) -> list[Finding]:
    tol = golden.tolerance
    key = expected.key
    if expected.boxes is not None:
        if found.boxes is None:
            return [Finding(case, key, f"{len(expected.boxes)} boxes", "a recognition result, not boxes")]
        if len(expected.boxes) != len(found.boxes):
            return [Finding(case, key, f"{len(expected.boxes)} boxes", f"{len(found.boxes)} boxes")]
        distance = box_distance(expected.boxes, found.boxes)
        if not distance <= tol.box:
            off = f"a corner {_num(distance)} px off"
            return [Finding(case, key, "boxes as in the golden", off, f"±{_num(tol.box)} px")]
        return []
    out = []
    if found.text != expected.text:
        out.append(Finding(case, key, f"text {expected.text!r}", f"text {found.text!r}"))
    if expected.score is not None and not (found.score is not None and abs(found.score - expected.score) <= tol.score):
        shown = "no score" if found.score is None else _num(found.score)
        out.append(Finding(case, f"{key} score", _num(expected.score), shown, f"±{_num(tol.score)}"))
    return out


def _scores(ranked: tuple[Ranked, ...]) -> str:
    return "[" + ", ".join(_num(r.score) for r in ranked) + "]"


def top_k_gap(expected: tuple[Ranked, ...], found: tuple[Ranked, ...]) -> float | None:
    """The largest score difference of two top-k lists; None when their class ids or labels differ."""
    same = [(e.class_id, e.label) for e in expected] == [(f.class_id, f.label) for f in found]
    return max((abs(e.score - f.score) for e, f in zip(expected, found, strict=True)), default=0.0) if same else None


def _top_k_findings(
    case: str, key: str, tol: Tolerance, expected: tuple[Ranked, ...], found: Prediction
) -> list[Finding]:
    if found.top_k is None:
        return [Finding(case, key, f"a top-{len(expected)} classification", "another kind of prediction")]
    gap = top_k_gap(expected, found.top_k)
    if gap is None:
        shown = [(r.class_id, r.label) if r.label else r.class_id for r in found.top_k]
        wanted = [(r.class_id, r.label) if r.label else r.class_id for r in expected]
        return [Finding(case, key, f"classes {wanted}", f"classes {shown}")]
    if not gap <= tol.score:
        return [Finding(case, f"{key} scores", _scores(expected), _scores(found.top_k), f"±{_num(tol.score)}")]
    return []


def corner_gap(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return max(abs(p - q) for p, q in zip(a, b, strict=True))


def match_objects(
    expected: tuple[Detected, ...], found: tuple[Detected, ...], box_tol: float
) -> tuple[list[tuple[Detected, Detected]], list[Detected], list[Detected]]:
    """Each expected object paired with the nearest unpaired found object of its class within ``box_tol`` px:
    (pairs, expected objects left unpaired, found objects left unpaired)."""
    left = list(found)
    pairs, missing = [], []
    for e in expected:
        near = min(
            ((corner_gap(e.box, f.box), i) for i, f in enumerate(left) if f.class_id == e.class_id), default=None
        )
        if near is None or not near[0] <= box_tol:
            missing.append(e)
        else:
            pairs.append((e, left.pop(near[1])))
    return pairs, missing, left


def _object(d: Detected) -> str:
    return f"class {d.class_id} at [{', '.join(_num(v) for v in d.box)}] (score {_num(d.score)})"


def _object_findings(
    case: str, key: str, tol: Tolerance, expected: tuple[Detected, ...], found: Prediction
) -> list[Finding]:
    if found.objects is None:
        return [Finding(case, key, f"{len(expected)} detected objects", "another kind of prediction")]
    pairs, missing, extra = match_objects(expected, found.objects, tol.box)
    box = f"±{_num(tol.box)} px"
    out = [Finding(case, key, _object(e), "no box of its class there", box) for e in missing]
    out.extend(Finding(case, key, "no other object", _object(f), box) for f in extra)
    out.extend(
        Finding(case, f"{key} score of {_object(e)}", _num(e.score), _num(f.score), f"±{_num(tol.score)}")
        for e, f in pairs
        if not abs(e.score - f.score) <= tol.score
    )
    return out


def mask_gap(a: MaskSummary, b: MaskSummary) -> float | None:
    """The largest difference of a class's share of the pixels; None when the shapes differ."""
    if (a.height, a.width) != (b.height, b.width):
        return None
    mine, theirs = dict(a.fractions), dict(b.fractions)
    return max((abs(mine.get(c, 0.0) - theirs.get(c, 0.0)) for c in mine.keys() | theirs.keys()), default=0.0)


def _shares(mask: MaskSummary) -> str:
    return f"{mask.height}x{mask.width}, " + ", ".join(f"class {c} {_num(f)}" for c, f in mask.fractions)


def _mask_findings(case: str, key: str, tol: Tolerance, expected: MaskSummary, found: Prediction) -> list[Finding]:
    if found.mask is None:
        return [Finding(case, key, "a segmentation mask", "another kind of prediction")]
    gap = mask_gap(expected, found.mask)
    if gap is None or not gap <= tol.fraction:
        within = "" if gap is None else f"±{_num(tol.fraction)} of the pixels"
        return [Finding(case, key, _shares(expected), _shares(found.mask), within)]
    return []


def _prediction_findings(case: str, golden: Golden, expected: Prediction, found: Prediction) -> list[Finding]:
    tol, key = golden.tolerance, expected.key
    if expected.top_k is not None:
        return _top_k_findings(case, key, tol, expected.top_k, found)
    if expected.objects is not None:
        return _object_findings(case, key, tol, expected.objects, found)
    if expected.mask is not None:
        return _mask_findings(case, key, tol, expected.mask, found)
    return _text_findings(case, golden, expected, found)


def case_findings(case: Case, golden: Golden) -> list[Finding]:
    by_key = {p.key: p for p in case.predictions}
    out = []
    for key, expected in golden.predictions.items():
        found = by_key.get(key)
        if found is None:
            out.append(Finding(case.name, key, "a prediction for this image", "none in this run's log"))
        else:
            out.extend(_prediction_findings(case.name, golden, expected, found))
    return out


def all_empty(predictions: tuple[Prediction, ...]) -> bool:
    return bool(predictions) and all(p.empty for p in predictions)


def compare(goldens: Mapping[str, Golden], evidence: Evidence) -> GoldenVerdict:
    """``goldens``: by precision, those found. Training and eval facts are judged once, against the
    golden of the first precision that has one (fp32 when it is there)."""
    findings: list[Finding] = []
    notes: list[str] = []
    first = next((goldens[p] for p in sorted(goldens, key=lambda p: p != "fp32")), None)
    if first is not None and first.train is not None and evidence.losses is not None:
        findings.extend(train_findings(first.train, evidence.losses))
    if first is not None and evidence.eval is not None:
        findings.extend(eval_findings(first, evidence.eval))
    empty = []
    for case in evidence.cases:
        golden = goldens.get(case.precision)
        if golden is not None:
            findings.extend(case_findings(case, golden))
        if not all_empty(case.predictions):
            continue
        empty.append(case.name)
        expected_empty = golden is not None and all_empty(tuple(golden.predictions.values()))
        if golden is not None and not expected_empty:
            findings.append(Finding(case.name, "every prediction", "some text or boxes", "empty"))
        else:
            notes.append(f"every prediction of {case.name} is empty" + (", as its golden expects" if golden else ""))
    unjudged = sorted({c.precision for c in evidence.cases} - goldens.keys())
    return GoldenVerdict(
        tuple(findings), tuple(notes), tuple(sorted(g.source for g in goldens.values())), tuple(unjudged), tuple(empty)
    )
