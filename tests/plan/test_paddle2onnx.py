"""The paddle2onnx chain as a plan: stages, order, prerequisites, inputs and tipc's additions."""

from __future__ import annotations

import pytest

from tests.config.test_paddle2onnx import CLAS, SEG
from tipc.config.modes import Mode
from tipc.dialects.paddleocr.config import Paddle2OnnxConfig, parse_any_config_text
from tipc.dialects.paddleocr.plan import build_plan
from tipc.plan import PlanOptions, StageKind
from tipc.plan.model import Plan

HEADER = "===========================paddle2onnx_params==========================="


def ocr(model: str, use_gpu: str = "True|False", det: str = "", rec: str = "./inference/rec/") -> str:
    lines = [
        HEADER, f"model_name:{model}", "python:python3.7", "2onnx: paddle2onnx", f"--det_model_dir:{det}",
        "--model_filename:inference.json", "--params_filename:inference.pdiparams",
        f"--det_save_file:{det and './inference/det_onnx/model.onnx'}", f"--rec_model_dir:{rec}",
        f"--rec_save_file:{rec and './inference/rec_onnx/model.onnx'}", "--opset_version:11",
        "--enable_onnx_checker:True", "inference:tools/infer/predict_rec.py", f"--use_gpu:{use_gpu}",
        "--det_model_dir:", "--rec_model_dir:", "--image_dir:./imgs",
    ]  # fmt: skip
    return "\n".join(lines) + "\n"


def plan_of(text: str, **options) -> Plan:
    config = parse_any_config_text(text, "p.txt")
    assert isinstance(config, Paddle2OnnxConfig)
    return build_plan(config, PlanOptions(mode=Mode.PADDLE2ONNX_INFER, python="py", **options))


def names(plan: Plan) -> list[str]:
    return [s.name for s in plan.stages()]


def test_a_rec_model_converts_then_infers_per_use_gpu_value_with_an_agreement_check_each():
    plan = plan_of(ocr("tinyrec"))
    assert names(plan) == [
        "convert_rec", "infer_onnx[gpu]", "infer_paddle[gpu]", "agree[gpu]",
        "infer_onnx[cpu]", "infer_paddle[cpu]", "agree[cpu]",
    ]  # fmt: skip
    assert (plan.output_dir, plan.status_log, plan.status_tail) == (
        "./test_tipc/output/tinyrec/paddle2onnx",
        "results_paddle2onnx.log",
        " ",
    )
    convert, onnx, paddle, agree = (plan.stage(f"paddle2onnx::{n}") for n in ("convert_rec", "infer_onnx[cpu]",
                                                                              "infer_paddle[cpu]", "agree[cpu]"))  # fmt: skip
    assert convert.kind is StageKind.CONVERT and convert.inputs == ("./inference/rec/inference.json",)
    assert convert.outputs == ("./inference/rec_onnx/model.onnx",)
    assert "--enable_dev_version=False" not in convert.argv
    assert onnx.requires == (convert.id,) and onnx.argv[-2:] == (
        "--rec_model_dir=./inference/rec_onnx/model.onnx",
        "--use_onnx=True",
    )
    # The reference: the same predictor on the Paddle model, no --use_onnx, no status line of its own.
    assert paddle.argv[-1] == "--rec_model_dir=./inference/rec/" and not paddle.status_line
    assert paddle.inputs == convert.inputs and not paddle.requires
    assert (agree.kind, agree.requires, agree.argv) == (StageKind.AGREE, (paddle.id, onnx.id), ())


def test_a_system_model_converts_det_and_rec_and_infers_with_both():
    plan = plan_of(ocr("ch_PP-OCRv3", use_gpu="False", det="./inference/det/"))
    assert names(plan)[:3] == ["convert_det", "convert_rec", "infer_onnx[cpu]"]
    onnx = plan.stage("paddle2onnx::infer_onnx[cpu]")
    assert onnx.requires == ("paddle2onnx::convert_det", "paddle2onnx::convert_rec")
    assert "--det_model_dir=./inference/det_onnx/model.onnx" in onnx.argv


@pytest.mark.parametrize(
    ("model", "use_gpu", "device", "skipped"),
    [
        ("x_rec", "True", "cpu", [("paddle2onnx::infer_onnx[gpu]", "--device cpu: GPU inference skipped")]),
        ("x_rec", "npu", "gpu", [("paddle2onnx::infer_onnx[npu]", "--use_gpu value 'npu' is neither CPU nor GPU: "
                                  "test_paddle2onnx.sh runs nothing for it")]),
        ("tiny", "False", "gpu", [("paddle2onnx", "model_name 'tiny' is none of PaddleOCR's system or table models "
                                   "and holds neither 'det' nor 'rec': test_paddle2onnx.sh converts nothing and runs "
                                   "no predictor for it")]),
    ],
    ids=["gpu-on-cpu", "other-device", "unknown-model"],
)  # fmt: skip
def test_what_the_bash_would_not_run_is_listed_with_its_reason(model, use_gpu, device, skipped):
    plan = plan_of(ocr(model, use_gpu=use_gpu), device=device)
    assert [(s.id, s.reason) for s in plan.skipped] == skipped
    assert not any(s.kind is StageKind.INFER for s in plan.stages())


def test_paddledetection_converts_the_export_it_makes():
    lines = [
        HEADER, "model_name:picodet", "python:python3.7", "filename:null", "##", "--output_dir:./out",
        "weights:https://x/picodet.pdparams", "norm_export:tools/export_model.py -c p.yml -o", "quant_export:null",
        "fpgm_export:null", "distill_export:null", "export1:null", "export_param:null", "kl_quant_export:null", "##",
        "infer_mode:norm", "infer_quant:False", "cmd:paddle2onnx", "--model_dir:null", "--model_filename:model.pdmodel",
        "--params_filename:model.pdiparams", "--save_file:model.onnx", "--opset_version:11",
        "--enable_onnx_checker:True", "paddle2onnx_param1:null", "infer_py:./deploy/onnx/infer.py",
        "--infer_cfg:null", "--onnx_file:null", "--image_file:./demo/a.jpg", "infer_param1:null",
    ]  # fmt: skip
    plan = plan_of("\n".join(lines) + "\n")
    export, convert, infer = plan.stages()
    assert (export.kind, convert.kind, infer.kind) == (StageKind.EXPORT, StageKind.CONVERT, StageKind.INFER)
    assert "weights=https://x/picodet.pdparams" in export.argv  # its utils_func.sh reads to the end of the line
    assert convert.requires == (export.id,) and not convert.inputs  # the chain makes its model
    assert infer.argv[2:4] == ("--infer_cfg=./out/picodet/infer_cfg.yml", "--onnx_file=./out/picodet/model.onnx")
    assert plan.status_tail == "  "


def _saving(lines: list[str], save: str) -> str:
    """A config of ``tests/config``'s whose ``--save_file`` line names ``save``."""
    return "\n".join(f"--save_file:{save}" if line.startswith("--save_file:") else line for line in lines) + "\n"


def _written(plan: Plan) -> list[str]:
    """Every path a stage of the plan writes: its outputs, and what its argv names to save."""
    paths = [o for s in plan.stages() for o in s.outputs]
    return paths + [a.partition("=")[2] for s in plan.stages() for a in s.argv if "save_file=" in a]


@pytest.mark.parametrize("save", ["../../outside/model.onnx", "/tmp/model.onnx", "./inference/../../x.onnx"])
@pytest.mark.parametrize("layout", ["ocr-rec", "clas", "seg"], ids=["PaddleOCR", "PaddleClas", "PaddleSeg"])
def test_a_save_path_that_leaves_the_checkout_is_kept_under_the_output_root(layout, save):
    text = {
        "ocr-rec": ocr("x_rec", use_gpu="False").replace("./inference/rec_onnx/model.onnx", save),
        "clas": _saving(CLAS, save),
        "seg": _saving(SEG, save),
    }[layout]
    plan = plan_of(text)
    written = _written(plan)
    root = plan.output_dir.rstrip("/") + "/"
    assert written and all(p.startswith(root) and ".." not in p.split("/") for p in written), written
    infer = next(s for s in plan.stages() if s.name == "infer_onnx[cpu]")
    if layout != "clas":  # PaddleClas's predictor reads its own model dir, as the bash's did
        assert any(a.endswith("=" + written[0]) for a in infer.argv)  # the predictor reads what was written


def test_a_save_path_inside_the_checkout_is_written_where_the_config_says():
    plan = plan_of(_saving(CLAS, "./deploy/models/r/inference.onnx"))
    assert _written(plan)[0] == "./deploy/models/r/inference.onnx"


def test_a_conversion_may_install_nothing():
    """paddle2onnx 2.1 tells Polygraphy to pip-install what constant folding misses, from an outside index."""
    plan = plan_of(ocr("ch_PP-OCRv3", use_gpu="False", det="./inference/det/"))
    converts = [s for s in plan.stages() if s.kind is StageKind.CONVERT]
    assert len(converts) == 2 and all(s.env.get("PIP_NO_INDEX") == "1" for s in converts)
    assert not any("PIP_NO_INDEX" in s.env for s in plan.stages() if s.kind is not StageKind.CONVERT)
