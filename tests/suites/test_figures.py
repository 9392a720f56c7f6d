"""Each dialect reads its suite's figures from its stage's part of the log (PaddleClas, PaddleDetection, PaddleSeg)."""

from __future__ import annotations

import sys

import pytest

from tipc.dialects.paddleclas import PADDLECLAS
from tipc.dialects.paddleclas.figures import classification_eval
from tipc.dialects.paddledetection import PADDLEDETECTION
from tipc.dialects.paddledetection.figures import detection_eval
from tipc.dialects.paddleseg import PADDLESEG
from tipc.dialects.paddleseg.figures import segmentation_eval, segmentation_timings
from tipc.plan.model import Stage, StageKind
from tipc.proc.executor import ProcessExecutor
from tipc.report.overview import eval_metric
from tipc.results.records import StageRecord, Status
from tipc.run.execute import StageContext, StageRun
from tipc.run.limits import Limits

CLAS_EVAL = """\
[2024/10/18 10:00:01] ppcls INFO: [Eval][Epoch 0][Iter: 0/2]CELoss: 6.91, loss: 6.91, top1: 0.00, top5: 0.00, batch_cost: 0.51 s, reader_cost: 0.40 s, ips: 31.2 images/sec
[2024/10/18 10:00:02] ppcls INFO: [Eval][Epoch 0][Avg]CELoss: 6.90889, loss: 6.90889, top1: 0.12500, top5: 0.50000
"""
DET_COCO = """\
[10/18 10:00:01] ppdet.engine INFO: Eval iter: 0
[10/18 10:00:02] ppdet.metrics.metrics INFO: The bbox result is saved to bbox.json.
 Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.412
 Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ] = 0.597
 Average Precision  (AP) @[ IoU=0.75      | area=   all | maxDets=100 ] = 0.442
 Average Precision  (AP) @[ IoU=0.50:0.95 | area= small | maxDets=100 ] = 0.211
 Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=  1 ] = 0.330
 Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.370
[10/18 10:00:03] ppdet.engine INFO: Total sample number: 8, average FPS: 3.21
"""
DET_VOC = """\
[10/18 10:00:02] ppdet.metrics.metrics INFO: Accumulating evaluatation results...
[10/18 10:00:02] ppdet.metrics.metrics INFO: mAP(0.50, 11point) = 81.23%
"""
SEG_EVAL = """\
2024-10-18 10:00:01 [INFO]\tStart evaluating (total_samples: 4, total_iters: 4)...
2024-10-18 10:00:02 [INFO]\t[EVAL] #Images: 4 mIoU: 0.3541 Acc: 0.8711 Kappa: 0.8322 Dice: 0.4523
2024-10-18 10:00:02 [INFO]\t[EVAL] Class IoU:
[0.9 0.1]
"""
SEG_TRAIN = """\
2024-10-18 10:00:01 [INFO]\t[TRAIN] epoch: 1, iter: 10/40, loss: 2.3, lr: 0.01, batch_cost: 0.9000, reader_cost: 0.50000, ips: 4.44 samples/sec | ETA 00:01:00
2024-10-18 10:00:03 [INFO]\t[TRAIN] epoch: 1, iter: 20/40, loss: 2.1, lr: 0.01, batch_cost: 0.2000, reader_cost: 0.01000, ips: 20.0 samples/sec | ETA 00:00:30
2024-10-18 10:00:05 [INFO]\t[TRAIN] epoch: 1, iter: 30/40, loss: 2.0, lr: 0.01, batch_cost: 0.3000, reader_cost: 0.03000, ips: 13.3 samples/sec | ETA 00:00:20
"""


@pytest.mark.parametrize(
    ("read", "log", "expected"),
    [
        (classification_eval, CLAS_EVAL, {"CELoss": 6.90889, "loss": 6.90889, "top1": 0.125, "top5": 0.5}),
        (classification_eval, "[Eval][Epoch 0][Iter: 0/2]top1: 0.1\n", {}),
        (detection_eval, DET_COCO, {"mAP": 0.412, "AP50": 0.597}),
        (detection_eval, DET_VOC, {"AP50": pytest.approx(0.8123)}),
        (detection_eval, "Average Precision  (AP) @[ IoU=0.50:0.95 | area= small | maxDets=100 ] = 0.2\n", {}),
        (segmentation_eval, SEG_EVAL, {"mIoU": 0.3541, "Acc": 0.8711, "Kappa": 0.8322, "Dice": 0.4523}),
        (segmentation_eval, "[EVAL] #Images: 4 mIoU: 0.5 Acc: 0.9 \n", {"mIoU": 0.5, "Acc": 0.9}),
        (segmentation_timings, SEG_TRAIN, {"batch_cost": pytest.approx(0.25), "reader_cost": pytest.approx(0.02)}),
        (segmentation_timings, SEG_TRAIN.splitlines()[0], {"batch_cost": 0.9, "reader_cost": 0.5}),
        (segmentation_timings, SEG_EVAL, {}),
    ],
    ids=[
        "clas-avg-line",
        "clas-iter-line-only",
        "det-coco-first-block",
        "det-voc-percent",
        "det-small-area-only",
        "seg-eval",
        "seg-eval-no-dice",
        "seg-timings-after-first-step",
        "seg-timings-one-step",
        "seg-timings-none",
    ],
)
def test_figures_of_realistic_log_lines(read, log, expected):
    assert read(log.splitlines()) == expected


def stage(kind: StageKind) -> Stage:
    return Stage(f"c::{kind.value}", "c", kind.value, kind, ("py",), {}, ".", "x.log")


@pytest.mark.parametrize(
    ("dialect", "kind", "log", "figure"),
    [
        (PADDLECLAS, StageKind.EVAL, CLAS_EVAL, ("top1", 0.125)),
        (PADDLEDETECTION, StageKind.EVAL, DET_COCO, ("mAP", 0.412)),
        (PADDLESEG, StageKind.EVAL, SEG_EVAL, ("mIoU", 0.3541)),
        (PADDLESEG, StageKind.TRAIN, SEG_TRAIN, ("reader_cost", pytest.approx(0.02))),
    ],
    ids=["clas-top1", "det-map", "seg-miou", "seg-reader-cost"],
)
def test_each_dialect_reads_only_its_stages_part_of_the_log(tmp_path, dialect, kind, log, figure):
    path = tmp_path / "stage.log"
    earlier = "an earlier stage's lines\n" + log.replace("0.", "9.")
    path.write_text(earlier + log)
    assert dialect.figures is not None
    found = dialect.figures(stage(kind), path, len(earlier.encode()), None)
    assert found[figure[0]] == figure[1]
    assert dialect.figures(stage(StageKind.EXPORT), path, 0, None) == {}


@pytest.mark.parametrize(
    ("dialect", "log", "main"),
    [
        (PADDLECLAS, CLAS_EVAL, ("top1", 0.125)),
        (PADDLEDETECTION, DET_COCO, ("mAP", 0.412)),
        (PADDLESEG, SEG_EVAL, ("mIoU", 0.3541)),
    ],
    ids=["clas", "det", "seg"],
)
def test_an_eval_stages_figures_reach_its_record_and_the_reports_eval_metric(tmp_path, dialect, log, main):
    """A real eval process prints its suite's lines: the judged metrics carry them, the report names the main one."""
    (tmp_path / "eval.py").write_text(f"import sys\nsys.stdout.write({log!r})\n")
    run = Stage("c::eval", "c", "eval", StageKind.EVAL, (sys.executable, "eval.py"), {}, ".", "e.log")
    context = StageContext(cwd=tmp_path, limits=Limits(), marker="m", dialect=dialect)
    judged = StageRun(run, context, tmp_path / "e.log").run(ProcessExecutor(grace=0.2))
    assert judged.status is Status.PASSED and judged.metrics[main[0]] == main[1]
    record = StageRecord("c::eval", "eval", "c", judged.status, metrics=judged.metrics)
    assert eval_metric([record]) == main
