"""ONNX Runtime's predictions against Paddle Inference's: every disagreement is a finding naming the image."""

from __future__ import annotations

import pytest

from tipc.golden.agreement import agreement
from tipc.golden.model import Tolerance
from tipc.metrics.predictions import Prediction

TOL = Tolerance(score=1e-4, metric=1e-3, box=1.0)
PADDLE = (Prediction("imgs/a.png", "cat", 0.98), Prediction("imgs/b.png", "dog", 0.91))


@pytest.mark.parametrize(
    ("onnx", "findings"),
    [
        ((Prediction("x/a.png", "cat", 0.98000004), Prediction("x/b.png", "dog", 0.91)), []),
        ((Prediction("a.png", "cat", 0.98), Prediction("b.png", "dug", 0.91)),
         ["infer_onnx[cpu] b.png: expected text 'dog', found text 'dug'"]),
        ((Prediction("a.png", "cat", 0.97), Prediction("b.png", "dog", 0.91)),
         ["infer_onnx[cpu] a.png score: expected 0.98, found 0.97 (tolerance ±0.0001)"]),
        ((Prediction("a.png", "cat", 0.98),),
         ["infer_onnx[cpu] b.png: expected a prediction for this image, found none in this run's log"]),
        ((*PADDLE, Prediction("c.png", "eel", 0.5)),
         ["infer_onnx[cpu] c.png: expected no prediction (Paddle Inference made none), found a prediction"]),
    ],
    ids=["agree", "text", "score", "missing", "extra"],
)  # fmt: skip
def test_each_image_must_agree(onnx, findings):
    found = agreement("infer_onnx[cpu]", PADDLE, onnx, TOL)
    assert [f.text() for f in found.findings] == findings


def test_the_largest_score_gap_is_measured_over_the_images_both_predicted():
    found = agreement("infer_onnx[cpu]", PADDLE, (Prediction("a.png", "cat", 0.98003),), TOL)
    assert found.images == 1 and found.largest_score_gap == pytest.approx(3e-5)
