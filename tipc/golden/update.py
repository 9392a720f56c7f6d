"""Goldens from one run, or from several runs with tolerances derived from their spread.

Each results folder gives its figures (``RunFacts``): this run's training losses, eval metrics,
and per precision the predictions of the first inference case that passed. ``derive`` (pure)
turns them into a golden: values from the first run; each tolerance twice the largest spread
seen across the runs (scores, box corners, mask shares), never below the precision's default; the
loss drop required is half the smallest drop measured; in a whole-train mode each eval metric gets
a floor at 90 % of its lowest value. Runs that disagree on a recognised text, a class, a detected
object or a mask's shape cannot make one golden: that is an error.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tipc.errors import UsageError
from tipc.golden.compare import box_distance, corner_gap, mask_gap, match_objects, top_k_gap
from tipc.golden.evidence import numbers, predictions_of, train_losses
from tipc.golden.model import Golden, Tolerance, TrainFacts, default_tolerance
from tipc.metrics.predictions import Prediction
from tipc.results.records import StageRecord, Status

FLOOR_SHARE = 0.9  # whole-train modes: an eval metric may fall to 90 % of what the runs reached
WHOLE_TRAIN = "whole_train_whole_infer"
SPEED = frozenset({"fps"})  # eval figures of speed, not of the model: no golden holds them


@dataclass(frozen=True, slots=True)
class RunFacts:
    source: str  # the results folder
    losses: tuple[float, ...] | None = None
    eval: dict[str, float] | None = None
    predictions: dict[str, tuple[Prediction, ...]] = field(default_factory=dict)  # by precision


def run_facts(source: str, records: Iterable[StageRecord]) -> RunFacts:
    """The figures of a folder's passed stages (the first chain's, where a folder holds several)."""
    passed = [r for r in records if r.status is Status.PASSED]
    train = next((r for r in passed if r.kind == "train"), None)
    evaluation = next((r for r in passed if r.kind == "eval"), None)
    predictions: dict[str, tuple[Prediction, ...]] = {}
    for r in passed:
        precision = str((r.infer or {}).get("precision", ""))
        if r.kind == "infer" and precision and precision not in predictions:
            predictions[precision] = predictions_of(r)
    return RunFacts(
        source,
        None if train is None else train_losses(train),
        None if evaluation is None else {k: v for k, v in numbers(evaluation.metrics).items() if k not in SPEED},
        predictions,
    )


def _spread(values: Sequence[float]) -> float:
    return max(values) - min(values) if values else 0.0


def _loss_drop(runs: Sequence[RunFacts]) -> float:
    drops = [(r.losses[0] - r.losses[-1]) / abs(r.losses[0]) for r in runs if r.losses and r.losses[0]]
    finite = [d for d in drops if math.isfinite(d)]
    return max(0.0, math.floor(min(finite) / 2 * 100) / 100) if finite else 0.0


@dataclass(frozen=True, slots=True)
class Spread:
    """The largest differences seen across runs: scores, box coordinates, mask pixel shares."""

    score: float = 0.0
    box: float = 0.0
    fraction: float = 0.0

    def wider(self, score: float = 0.0, box: float = 0.0, fraction: float = 0.0) -> Spread:
        return Spread(max(self.score, score), max(self.box, box), max(self.fraction, fraction))


def _pair_spread(p: Prediction, q: Prediction, other: str, first: str) -> Spread:
    """How far two runs' predictions of one image are apart; an error when no tolerance could join them."""
    key = p.key
    if p.text != q.text:
        raise UsageError(
            f"{other}: {key} reads {q.text!r} where {first} reads {p.text!r}: runs that "
            "disagree on a text cannot make one golden"
        )
    spread = Spread()
    if p.score is not None and q.score is not None:
        spread = spread.wider(score=abs(p.score - q.score))
    if p.boxes is not None and q.boxes is not None:
        distance = box_distance(p.boxes, q.boxes)
        if not math.isfinite(distance):
            raise UsageError(f"{other}: {key} has other boxes than in {first}")
        spread = spread.wider(box=distance)
    if p.top_k is not None:
        gap = None if q.top_k is None else top_k_gap(p.top_k, q.top_k)
        if gap is None:
            raise UsageError(f"{other}: {key} has other classes than in {first}: runs that disagree on a class "
                             "cannot make one golden")  # fmt: skip
        spread = spread.wider(score=gap)
    if p.objects is not None:
        pairs, missing, extra = match_objects(p.objects, q.objects or (), math.inf)
        if missing or extra:
            raise UsageError(f"{other}: {key} has other detected objects than in {first}")
        for a, b in pairs:
            spread = spread.wider(score=abs(a.score - b.score), box=corner_gap(a.box, b.box))
    if p.mask is not None:
        gap = None if q.mask is None else mask_gap(p.mask, q.mask)
        if gap is None:
            raise UsageError(f"{other}: {key}'s mask has another shape than in {first}")
        spread = spread.wider(fraction=gap)
    return spread


def _predictions(runs: Sequence[RunFacts], precision: str) -> tuple[dict[str, Prediction], Spread]:
    """The first run's predictions, and the largest spreads across runs."""
    first = {p.key: p for p in runs[0].predictions.get(precision, ())}
    spread = Spread()
    for run in runs[1:]:
        other = {p.key: p for p in run.predictions.get(precision, ())}
        for key, p in first.items():
            q = other.get(key)
            if q is None:
                raise UsageError(f"{run.source}: no {precision} prediction for {key}, which {runs[0].source} has")
            found = _pair_spread(p, q, run.source, runs[0].source)
            spread = spread.wider(found.score, found.box, found.fraction)
    return first, spread


def derive(runs: Sequence[RunFacts], precision: str, mode: str, source: str = "") -> Golden:
    if not runs:
        raise UsageError("tipc golden update: no results folder given")
    predictions, spread = _predictions(runs, precision)
    evals = [r.eval for r in runs if r.eval is not None]
    names = list(evals[0]) if evals else []
    metric_spread = max((_spread([e[n] for e in evals if n in e]) for n in names), default=0.0)
    base = default_tolerance(precision)
    tolerance = Tolerance(
        score=max(base.score, 2 * spread.score),
        metric=max(base.metric, 2 * metric_spread),
        box=max(base.box, 2 * spread.box),
        fraction=max(base.fraction, 2 * spread.fraction),
    )
    floors = (
        {n: math.floor(min(e[n] for e in evals if n in e) * FLOOR_SHARE * 1000) / 1000 for n in names}
        if mode == WHOLE_TRAIN
        else {}
    )
    # Training facts only from losses tipc could read: a suite's log it has no loss reader for (PaddleClas's,
    # PaddleSeg's) makes a golden of predictions and metrics, not one that fails every run for a missing loss.
    trained = any(r.losses for r in runs)
    train = TrainFacts(loss_drop=_loss_drop(runs), metric_floor=floors) if trained else None
    return Golden(source, precision, tolerance, predictions, dict(evals[0]) if evals else {}, train)
