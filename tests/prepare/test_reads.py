from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fake_checkout import YML_REL, checkout_plan, make_checkout
from tipc.dialects.paddleocr.prepare.reads import stage_reads
from tipc.plan.model import StageKind


def _reads(root: Path, mode: str = "lite_train_lite_infer", **checkout):
    config, plan = checkout_plan(make_checkout(root, **checkout), root, mode)
    return stage_reads(plan, config)


def test_train_export_and_infer_stages_of_a_lite_plan(tmp_path):
    reads = _reads(tmp_path, train_overrides="Train.dataset.data_dir=./d")
    train, export = reads.ymls
    assert (train.kind, train.yml, train.line, train.sections) == (StageKind.TRAIN, YML_REL, 16, ("Train", "Eval"))
    assert (export.kind, export.yml, export.line, export.sections) == (StageKind.EXPORT, YML_REL, 30, ())
    assert [(o.keys, o.value, o.origin.line) for o in train.overrides if o.keys[0] == "Train"] == [
        (("Train", "dataset", "data_dir"), "./d", 16),
        (("Train", "loader", "batch_size_per_card"), 8, 9),
    ]
    assert [(i.path, i.line) for i in reads.images] == [("./inference/rec_inference", 12)]


@pytest.mark.parametrize(
    ("word", "line"),
    [
        ("Global.print_batch_step=1", 16),  # the script line
        ("Global.use_gpu=False", 5),  # a key:value param line
        ("Global.epoch_num=1", 7),  # a mode-valued param line
    ],
    ids=["script-word", "param-line", "mode-value"],
)
def test_override_origins_are_the_lines_that_wrote_them(tmp_path, word, line):
    (train, _) = _reads(tmp_path).ymls
    origins = {f"{'.'.join(o.keys)}={o.value}": o.origin for o in train.overrides}
    found = origins[word]
    assert found.line == line and found.what == f"-o {word} of stage {train.stage}"


def test_an_eval_stage_reads_the_eval_set_with_its_own_overrides(tmp_path):
    reads = _reads(tmp_path, eval_script=f"tools/eval.py -c {YML_REL} -o Eval.dataset.data_dir=./v")
    evaluation = next(r for r in reads.ymls if r.kind is StageKind.EVAL)
    assert (evaluation.line, evaluation.sections) == (24, ("Eval",))
    save = "./test_tipc/output/fake_rec/lite_train_lite_infer/norm_train_gpus_-1_autocast_fp32"
    assert [(o.keys, o.value, o.origin.line) for o in evaluation.overrides] == [
        (("Eval", "dataset", "data_dir"), "./v", 24),  # the eval line's own word
        (("Global", "pretrained_model"), f"{save}/latest", 10),  # the plan's weights, under that line's key
        (("Global", "use_gpu"), False, 5),
    ]


def test_whole_infer_reads_the_image_dir_line(tmp_path):
    reads = _reads(tmp_path, "whole_infer", infer_images="./inference/imgs")
    assert reads.ymls == ()
    assert {(i.path, i.line) for i in reads.images} == {("./inference/imgs", 48)}
