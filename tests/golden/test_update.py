"""Goldens derived from runs: values of the first, tolerances from the spread, never below the defaults."""

from __future__ import annotations

import pytest

from tipc.errors import UsageError
from tipc.golden.model import Tolerance, default_tolerance
from tipc.golden.update import RunFacts, derive
from tipc.metrics.predictions import Detected, MaskSummary, Prediction, Ranked

LOSSES = (140.0, 100.0, 47.0)  # a drop of 66 %


def run(score=0.9, acc=0.5, text="kb9", losses=LOSSES, boxes=None, source="r") -> RunFacts:
    predictions = (
        Prediction("x/w1.png", text=text, score=score),
        Prediction("x/d.jpg", boxes=boxes or ((((1.0, 2.0),),))),
    )
    return RunFacts(source, losses, {"acc": acc}, {"fp32": predictions})


def test_one_run_gives_its_values_and_the_default_tolerances():
    golden = derive([run()], "fp32", "lite_train_lite_infer")
    w1 = golden.predictions["w1.png"]
    assert (w1.text, w1.score) == ("kb9", 0.9) and golden.predictions["d.jpg"].boxes == (((1.0, 2.0),),)
    assert golden.tolerance == default_tolerance("fp32")
    assert golden.eval == {"acc": 0.5}
    assert golden.train is not None and golden.train.loss_drop == 0.33 and golden.train.metric_floor == {}


@pytest.mark.parametrize(
    ("runs", "tolerance"),
    [
        ([run(), run()], Tolerance(score=1e-3, metric=1e-3, box=1.0)),
        ([run(score=0.90), run(score=0.93), run(score=0.91)], Tolerance(score=0.06, metric=1e-3, box=1.0)),
        ([run(acc=0.5), run(acc=0.6)], Tolerance(score=1e-3, metric=0.2, box=1.0)),
        ([run(), run(boxes=(((3.0, 2.0),),))], Tolerance(score=1e-3, metric=1e-3, box=4.0)),
    ],
    ids=["identical-runs", "score-spread", "metric-spread", "box-spread"],
)
def test_several_runs_give_tolerances_from_their_spread(runs, tolerance):
    got = derive(runs, "fp32", "lite_train_lite_infer").tolerance
    assert (got.score, got.metric, got.box) == pytest.approx((tolerance.score, tolerance.metric, tolerance.box))


def test_runs_that_disagree_on_a_text_cannot_make_one_golden():
    with pytest.raises(UsageError, match=r"w1\.png reads 'kb8' where a reads 'kb9'"):
        derive([run(source="a"), run(text="kb8", source="b")], "fp32", "lite_train_lite_infer")


def test_the_loss_drop_asked_is_half_the_smallest_measured():
    golden = derive([run(), run(losses=(100.0, 80.0))], "fp32", "lite_train_lite_infer")
    assert golden.train is not None and golden.train.loss_drop == 0.1


def test_a_whole_train_mode_puts_a_floor_under_the_eval_metrics():
    golden = derive([run(acc=0.95), run(acc=0.93)], "fp32", "whole_train_whole_infer")
    assert golden.train is not None and golden.train.metric_floor == {"acc": 0.837}


def test_without_training_no_training_facts():
    assert derive([run(losses=None)], "fp32", "whole_infer").train is None


def suite_run(top=0.81, box=(10.0, 10.0, 50.0, 40.0), share=0.75, ids=(7, 2), source="r") -> RunFacts:
    """A run of each other suite's kind of prediction: a top-k, detected objects, a mask summary."""
    predictions = (
        Prediction("o/owl.jpeg", top_k=(Ranked(ids[0], top), Ranked(ids[1], 0.1))),
        Prediction("o/s.jpg", objects=(Detected(0, 0.9, box), Detected(1, top, (60.0, 5.0, 90.0, 30.0)))),
        Prediction("o/c.png", mask=MaskSummary(4, 4, ((0, share), (1, 1 - share)))),
    )
    return RunFacts(source, None, None, {"fp32": predictions})


@pytest.mark.parametrize(
    ("runs", "spreads"),
    [
        ([suite_run(), suite_run()], (1e-3, 1.0, 1e-3)),
        ([suite_run(), suite_run(top=0.85)], (0.08, 1.0, 1e-3)),
        ([suite_run(), suite_run(box=(10.0, 12.0, 50.0, 40.0))], (1e-3, 4.0, 1e-3)),
        ([suite_run(), suite_run(share=0.74)], (1e-3, 1.0, 0.02)),
    ],
    ids=["identical", "score-spread", "object-box-spread", "mask-share-spread"],
)
def test_the_other_suites_predictions_give_tolerances_from_their_spread(runs, spreads):
    got = derive(runs, "fp32", "lite_train_lite_infer").tolerance
    assert (got.score, got.box, got.fraction) == pytest.approx(spreads)


@pytest.mark.parametrize(
    ("other", "message"),
    [
        (suite_run(ids=(2, 7), source="b"), r"b: owl\.jpeg has other classes than in a"),
        (
            RunFacts(
                "b",
                None,
                None,
                {
                    "fp32": (
                        *suite_run().predictions["fp32"][:1],
                        Prediction("s.jpg", objects=()),
                        suite_run().predictions["fp32"][2],
                    )
                },
            ),
            r"b: s\.jpg has other detected objects than in a",
        ),
        (
            RunFacts(
                "b",
                None,
                None,
                {
                    "fp32": (
                        *suite_run().predictions["fp32"][:2],
                        Prediction("c.png", mask=MaskSummary(2, 8, ((0, 1.0),))),
                    )
                },
            ),
            r"b: c\.png's mask has another shape than in a",
        ),
    ],
    ids=["classes", "objects", "mask-shape"],
)
def test_runs_that_disagree_on_a_class_an_object_or_a_shape_cannot_make_one_golden(other, message):
    with pytest.raises(UsageError, match=message):
        derive([suite_run(source="a"), other], "fp32", "lite_train_lite_infer")
