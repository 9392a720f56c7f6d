"""A golden against a run's evidence: every finding names what, expected, found and the tolerance."""

from __future__ import annotations

import math

import pytest

from tipc.golden.compare import Case, Evidence, compare
from tipc.golden.model import Golden, TrainFacts, default_tolerance
from tipc.metrics.predictions import Detected, MaskSummary, Prediction, Ranked

CASE = "infer[cpu-mkldnn_False-threads_2-fp32-bs1]"
LOSSES = (140.0, 107.0, 47.0)
BOX = ((10.0, 10.0), (50.0, 10.0), (50.0, 20.0), (10.0, 20.0))


def rec(key: str, text: str, score: float) -> Prediction:
    return Prediction(f"inference/rec/{key}", text=text, score=score)


HALVING = TrainFacts(loss_drop=0.5)


def golden(precision="fp32", predictions=(), eval_=None, train=HALVING) -> Golden:
    return Golden(
        f"golden/cfg/lite_train_lite_infer_{precision}.yaml",
        precision,
        default_tolerance(precision),
        {p.key: Prediction(p.key, text=p.text, score=p.score, boxes=p.boxes) for p in predictions},
        eval_ or {},
        train,
    )


def evidence(predictions=(), losses=LOSSES, eval_=None, precision="fp32") -> Evidence:
    return Evidence(losses, eval_, (Case(CASE, precision, tuple(predictions)),))


EXPECTED = (rec("w1.png", "kb9", 0.93), rec("w2.png", "x1", 0.80))


@pytest.mark.parametrize(
    ("found", "texts"),
    [
        (EXPECTED, []),
        ((rec("w1.png", "kb9", 0.9305), EXPECTED[1]), []),
        (
            (rec("w1.png", "kb9", 0.91), EXPECTED[1]),
            [f"{CASE} w1.png score: expected 0.93, found 0.91 (tolerance ±0.001)"],
        ),
        ((rec("w1.png", "kb8", 0.93), EXPECTED[1]), [f"{CASE} w1.png: expected text 'kb9', found text 'kb8'"]),
        ((EXPECTED[0],), [f"{CASE} w2.png: expected a prediction for this image, found none in this run's log"]),
        ((*EXPECTED, rec("w3.png", "zz", 0.1)), []),
    ],
    ids=["pass", "within-tolerance", "score-out-of-tolerance", "text-differs", "missing-image", "extra-image-ignored"],
)
def test_recognition_predictions_against_the_golden(found, texts):
    verdict = compare({"fp32": golden(predictions=EXPECTED)}, evidence(found))
    assert [f.text() for f in verdict.findings] == texts


@pytest.mark.parametrize(
    ("precision", "findings"),
    [("fp32", 1), ("fp16", 0), ("int8", 0)],
    ids=["fp32-tight", "fp16-looser", "int8-looser"],
)
def test_tolerances_are_per_precision(precision, findings):
    found = (rec("w1.png", "kb9", 0.94), EXPECTED[1])  # 0.01 off: beyond fp32's 0.001, within fp16's 0.02
    verdict = compare({precision: golden(precision, EXPECTED)}, evidence(found, precision=precision))
    assert len(verdict.findings) == findings


def test_a_case_is_judged_by_the_golden_of_its_own_precision():
    cases = (Case(CASE, "fp32", EXPECTED), Case("infer[fp16]", "fp16", EXPECTED))
    verdict = compare({"fp32": golden(predictions=EXPECTED)}, Evidence(LOSSES, None, cases))
    assert verdict.findings == () and verdict.unjudged == ("fp16",)


@pytest.mark.parametrize(
    ("losses", "text"),
    [
        (LOSSES, None),
        ((140.0, math.nan, 47.0), "train loss at logged step 2: expected a finite loss, found nan"),
        ((140.0, 120.0, math.inf), "train loss at logged step 3: expected a finite loss, found inf"),
        ((140.0, 141.0, 139.0), "train last loss: expected <= 70 (first 140 less 50%), found 139"),
        ((), "train loss: expected logged losses, found no loss line in this run's training log"),
    ],
    ids=["decreasing", "nan-loss", "inf-loss", "not-decreasing", "no-loss"],
)
def test_training_facts(losses, text):
    verdict = compare({"fp32": golden()}, evidence(losses=losses))
    assert [f.text() for f in verdict.findings] == ([text] if text else [])


def test_without_a_train_stage_no_training_fact_is_judged():
    assert compare({"fp32": golden()}, evidence(losses=None)).findings == ()


@pytest.mark.parametrize(
    ("found", "texts"),
    [
        ({"acc": 0.9, "norm_edit_dis": 0.95}, []),
        ({"acc": 0.9005, "norm_edit_dis": 0.95}, []),
        ({"acc": 0.85, "norm_edit_dis": 0.95}, ["eval acc: expected 0.9, found 0.85 (tolerance ±0.001)"]),
        ({"norm_edit_dis": 0.95}, ["eval acc: expected 0.9, found no such metric in this run's eval log"]),
    ],
    ids=["equal", "within", "out-of-tolerance", "missing-metric"],
)
def test_the_eval_metric(found, texts):
    verdict = compare({"fp32": golden(eval_={"acc": 0.9})}, evidence(eval_=found))
    assert [f.text() for f in verdict.findings] == texts


def test_a_whole_train_floor_on_the_final_metric():
    facts = TrainFacts(loss_drop=0.0, metric_floor={"acc": 0.8})
    assert compare({"fp32": golden(train=facts)}, evidence(eval_={"acc": 0.85})).findings == ()
    (finding,) = compare({"fp32": golden(train=facts)}, evidence(eval_={"acc": 0.5})).findings
    assert finding.text() == "eval acc: expected >= 0.8 (floor), found 0.5"


def test_every_prediction_empty_is_a_finding_when_the_golden_expects_text():
    empty = (rec("w1.png", "", 0.0), rec("w2.png", "", 0.0))
    verdict = compare({"fp32": golden(predictions=EXPECTED)}, evidence(empty))
    assert f"{CASE} every prediction: expected some text or boxes, found empty" in [f.text() for f in verdict.findings]
    assert verdict.empty_cases == (CASE,)


def test_every_prediction_empty_as_the_golden_expects_is_a_note_not_a_finding():
    empty = (rec("w1.png", "", 0.0), rec("w2.png", "", 0.0))
    verdict = compare({"fp32": golden(predictions=empty)}, evidence(empty))
    assert verdict.findings == ()
    assert verdict.notes == (f"every prediction of {CASE} is empty, as its golden expects",)


@pytest.mark.parametrize(
    ("found", "texts"),
    [
        ((BOX,), []),
        ((tuple((x + 0.8, y - 0.8) for x, y in BOX),), []),
        (
            (tuple((x + 2, y) for x, y in BOX),),
            [f"{CASE} d.jpg: expected boxes as in the golden, found a corner 2 px off (tolerance ±1 px)"],
        ),
        ((BOX, BOX), [f"{CASE} d.jpg: expected 1 boxes, found 2 boxes"]),
    ],
    ids=["same", "within-1px", "2px-off", "one-box-more"],
)
def test_detection_boxes(found, texts):
    expected = (Prediction("d.jpg", boxes=(BOX,)),)
    verdict = compare({"fp32": golden(predictions=expected)}, evidence((Prediction("x/d.jpg", boxes=found),)))
    assert [f.text() for f in verdict.findings] == texts


CLS = (Ranked(7, 0.81, "owl"), Ranked(2, 0.12, "hawk"))
CAR, BIKE = Detected(0, 0.93, (10.0, 10.0, 50.0, 40.0)), Detected(1, 0.60, (60.0, 5.0, 90.0, 30.0))
CITY = MaskSummary(4, 4, ((0, 0.75), (1, 0.25)))


@pytest.mark.parametrize(
    ("expected", "found", "findings"),
    [
        (Prediction("owl.jpeg", top_k=CLS), Prediction("a/owl.jpeg", top_k=(Ranked(7, 0.8105, "owl"), CLS[1])), []),
        (
            Prediction("owl.jpeg", top_k=CLS),
            Prediction("owl.jpeg", top_k=(CLS[1], CLS[0])),
            [f"{CASE} owl.jpeg: expected classes [(7, 'owl'), (2, 'hawk')], found classes [(2, 'hawk'), (7, 'owl')]"],
        ),
        (
            Prediction("owl.jpeg", top_k=CLS),
            Prediction("owl.jpeg", top_k=(Ranked(7, 0.75, "owl"), CLS[1])),
            [f"{CASE} owl.jpeg scores: expected [0.81, 0.12], found [0.75, 0.12] (tolerance ±0.001)"],
        ),
        (
            Prediction("owl.jpeg", top_k=CLS),
            Prediction("owl.jpeg", text="owl", score=0.8),
            [f"{CASE} owl.jpeg: expected a top-2 classification, found another kind of prediction"],
        ),
        # Two objects found in the other order (close scores swap): each pairs with its own box.
        (Prediction("s.jpg", objects=(CAR, BIKE)), Prediction("s.jpg", objects=(BIKE, CAR)), []),
        (
            Prediction("s.jpg", objects=(CAR, BIKE)),
            Prediction("s.jpg", objects=(Detected(0, 0.93, (10.0, 10.0, 50.0, 43.0)), BIKE)),
            [
                f"{CASE} s.jpg: expected class 0 at [10, 10, 50, 40] (score 0.93), found no box of its class there "
                "(tolerance ±1 px)",
                f"{CASE} s.jpg: expected no other object, found class 0 at [10, 10, 50, 43] (score 0.93) "
                "(tolerance ±1 px)",
            ],
        ),
        (
            Prediction("s.jpg", objects=(CAR,)),
            Prediction("s.jpg", objects=(Detected(0, 0.90, (10.5, 10.0, 50.0, 40.0)),)),
            [
                f"{CASE} s.jpg score of class 0 at [10, 10, 50, 40] (score 0.93): expected 0.93, found 0.9 (tolerance ±0.001)"
            ],
        ),
        (
            Prediction("c.png", mask=CITY),
            Prediction("out/c.png", mask=MaskSummary(4, 4, ((0, 0.7505), (1, 0.2495)))),
            [],
        ),
        (
            Prediction("c.png", mask=CITY),
            Prediction("c.png", mask=MaskSummary(4, 4, ((0, 0.5), (1, 0.25), (2, 0.25)))),
            [
                f"{CASE} c.png: expected 4x4, class 0 0.75, class 1 0.25, found 4x4, class 0 0.5, class 1 0.25, "
                "class 2 0.25 (tolerance ±0.001 of the pixels)"
            ],
        ),
        (
            Prediction("c.png", mask=CITY),
            Prediction("c.png", mask=MaskSummary(8, 4, CITY.fractions)),
            [f"{CASE} c.png: expected 4x4, class 0 0.75, class 1 0.25, found 8x4, class 0 0.75, class 1 0.25"],
        ),
        (
            Prediction("c.png", mask=CITY),
            None,
            [f"{CASE} c.png: expected a prediction for this image, found none in this run's log"],
        ),
    ],
    ids=[
        "top-k-within-tolerance",
        "top-k-other-order",
        "top-k-score-off",
        "top-k-against-a-text",
        "objects-swapped-order",
        "object-box-moved",
        "object-score-off",
        "mask-within-tolerance",
        "mask-shares-off",
        "mask-other-shape",
        "mask-missing",
    ],
)
def test_classification_detection_and_segmentation_findings(expected, found, findings):
    verdict = compare({"fp32": golden_of(expected)}, evidence([found] if found else []))
    assert [f.text() for f in verdict.findings if f.subject == CASE] == findings


def golden_of(expected: Prediction) -> Golden:
    return Golden("g.yaml", "fp32", default_tolerance("fp32"), {expected.key: expected})
