"""ONNX Runtime's predictions against Paddle Inference's, from the same export. Pure.

A paddle2onnx chain converts an exported model and predicts with the ONNX file; the prediction of
the Paddle model it came from is the expectation. The comparison is a golden's (``case_findings``):
per image, texts equal and scores within the tolerance, boxes within theirs, with the reference as
the golden; images only one side predicted are findings too. The tolerance is the golden
machinery's: the config's golden file for the mode when there is one, else the fp32 default.
"""

from __future__ import annotations

from dataclasses import dataclass

from tipc.golden.compare import Case, case_findings
from tipc.golden.model import Finding, Golden, Tolerance
from tipc.metrics.predictions import Prediction

PRECISION = "fp32"  # both runs are the exported fp32 model


@dataclass(frozen=True, slots=True)
class Agreement:
    findings: tuple[Finding, ...]
    images: int  # images both sides predicted
    largest_score_gap: float | None  # the largest |score difference| over them (None: no scores)


def agreement(
    subject: str, reference: tuple[Prediction, ...], found: tuple[Prediction, ...], tol: Tolerance
) -> Agreement:
    """``subject``: the ONNX inference stage's name (findings name it and the image)."""
    expected = {p.key: p for p in reference}
    golden = Golden(source="Paddle Inference", precision=PRECISION, tolerance=tol, predictions=expected)
    findings = case_findings(Case(subject, PRECISION, found), golden)
    by_key = {p.key: p for p in found}
    for key in sorted(by_key.keys() - expected.keys()):
        findings.append(Finding(subject, key, "no prediction (Paddle Inference made none)", "a prediction"))
    both = [(expected[k], by_key[k]) for k in expected.keys() & by_key.keys()]
    gaps = [abs(a.score - b.score) for a, b in both if a.score is not None and b.score is not None]
    return Agreement(tuple(findings), len(both), max(gaps) if gaps else None)
