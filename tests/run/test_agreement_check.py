"""The agreement check of a paddle2onnx chain on the fake target: ONNX predictions held to Paddle Inference's."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.script_executor import ScriptExecutor
from tipc.config.modes import Mode
from tipc.dialects.paddleocr.config import parse_any_config_text
from tipc.dialects.paddleocr.plan import build_plan
from tipc.plan import PlanOptions
from tipc.results.records import Status
from tipc.run.plan_run import PlanRun, RunSettings

HEADER = "===========================paddle2onnx_params==========================="
CONFIG = f"""{HEADER}
model_name:fake_rec
python:python3
2onnx:{sys.executable} tools/paddle2onnx_fake.py
--det_model_dir:
--model_filename:inference.json
--params_filename:inference.pdiparams
--det_save_file:
--rec_model_dir:./inference/model/
--rec_save_file:./inference/onnx/model.onnx
--opset_version:11
--enable_onnx_checker:True
inference:tools/infer/predict_rec.py
--use_gpu:False
--det_model_dir:
--rec_model_dir:
--image_dir:./inference/rec_inference
"""


def run(repo: Path):
    config = parse_any_config_text(CONFIG, str(repo / "p2o.txt"))
    options = PlanOptions(mode=Mode.PADDLE2ONNX_INFER, repo=str(repo), python=sys.executable, device="cpu")
    plan = build_plan(config, options)
    session = PlanRun(plan, RunSettings(), ScriptExecutor())
    session.begin()
    records = {s.name: session.run_stage(s) for s in plan.stages()}
    session.end()
    return session, records


@pytest.fixture
def exported(fake_repo: Path) -> Path:
    (fake_repo / "inference/model").mkdir(parents=True)
    for name in ("inference.json", "inference.pdiparams"):
        (fake_repo / "inference/model" / name).write_text("")
    return fake_repo


def test_predictions_that_agree_pass_and_only_the_bashs_stages_get_status_lines(exported):
    session, records = run(exported)
    assert {name: r.status for name, r in records.items()} == dict.fromkeys(
        ("convert_rec", "infer_onnx[cpu]", "infer_paddle[cpu]", "agree[cpu]"), Status.PASSED
    )
    agree = records["agree[cpu]"]
    assert agree.reason.startswith("3 images agree: texts equal and scores within ±0.001 (the fp32 default)")
    assert agree.metrics["images"] == 3 and agree.metrics["largest_score_gap"] == 0.0
    status = (session.results.path / "results_paddle2onnx.log").read_text().splitlines()
    assert [line.split(" - ")[0] for line in status] == [" Run successfully with command"] * 2


def test_a_conversion_that_changed_the_model_fails_naming_each_image(exported, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE_ONNX", "changed")
    _, records = run(exported)
    agree = records["agree[cpu]"]
    assert agree.status is Status.FAILED
    assert agree.reason.startswith(
        "3 disagreement(s) of ONNX Runtime with Paddle Inference: infer_onnx[cpu] word_0.png: expected text 'fake', "
        "found text 'changed'; infer_onnx[cpu] word_1.png: "
    )
    assert Path(agree.log).read_text().count("FINDING infer_onnx[cpu] word_") == 3
