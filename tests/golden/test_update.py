"""Goldens derived from runs: values of the first, tolerances from the spread, never below the defaults."""

from __future__ import annotations

import pytest

from tipc.errors import UsageError
from tipc.golden.model import Tolerance, default_tolerance
from tipc.golden.update import RunFacts, derive
from tipc.metrics.predictions import Prediction

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
