"""PaddleDetection's train → eval → export: where the checkout's trainer writes its weights, and a CPU run's export."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.suites.test_benchmark import det_config
from tipc.config.modes import Mode
from tipc.dialects.paddledetection.planner import CHECKPOINTER
from tipc.plan.model import PlanOptions
from tipc.suites import front

SAVE = "./test_tipc/output/tiny_yolo/lite_train_lite_infer/norm_train_gpus_0_autocast_null"
# The Checkpointer's line in PaddleDetection 2.7 and later, and the two lines of the releases before
FLAT = "        self.save_dir = self.model.cfg.save_dir\n"
NESTED = "        self.save_dir = os.path.join(self.model.cfg.save_dir,\n                                     self.model.cfg.filename)\n"


def planned(tmp_path: Path, checkpointer: str | None, device: str):
    config = det_config(tmp_path / "PaddleDetection", "tiny_yolo")
    repo = config.parents[3]
    if checkpointer is not None:
        (repo / CHECKPOINTER).parent.mkdir(parents=True)
        (repo / CHECKPOINTER).write_text(
            f"class Checkpointer(Callback):\n    def __init__(self, model):\n{checkpointer}"
        )
    options = PlanOptions(Mode.LITE_TRAIN_LITE_INFER, repo=str(repo), python="python", device=device)  # type: ignore[arg-type]
    return front.plan_path(config, options, lambda name: "")


@pytest.mark.parametrize(
    ("checkpointer", "weights"),
    [
        (FLAT, f"{SAVE}/model_final.pdparams"),  # 2.7 and later: in save_dir itself
        (NESTED, f"{SAVE}/tiny_yolo/model_final.pdparams"),  # before: in save_dir/<filename>, as the bash reads
        (None, f"{SAVE}/tiny_yolo/model_final.pdparams"),  # no trainer to read (a config alone): the bash's path
    ],
)
def test_eval_and_export_read_the_weights_where_the_checkouts_trainer_writes_them(
    tmp_path: Path, checkpointer: str | None, weights: str
) -> None:
    found = planned(tmp_path, checkpointer, "gpu")
    train, evaluate, export, *_ = found.chains[0].stages
    assert train.outputs == (weights,)
    assert f"weights={weights}" in evaluate.argv and f"weights={weights}" in export.argv
    assert export.outputs == (f"{SAVE}/tiny_yolo/model.pdiparams",)  # the export still writes under filename=
    assert any("saves its weights in save_dir itself" in n for n in found.notes) == (checkpointer == FLAT)


@pytest.mark.parametrize(("device", "cpu_export"), [("cpu", True), ("gpu", False)])
def test_a_cpu_runs_export_asks_for_no_gpu_as_its_training_does(tmp_path: Path, device: str, cpu_export: bool) -> None:
    found = planned(tmp_path, FLAT, device)
    train, _, export, *_ = found.chains[0].stages
    assert ("use_gpu=False" in train.argv) == cpu_export
    assert ("use_gpu=False" in export.argv) == cpu_export
    # before --output_dir: the words after -o are the yml's overrides
    assert export.argv[-1].startswith("--output_dir=")
