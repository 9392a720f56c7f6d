"""Which dialect reads a config (detected from its checkout, or named), its tags, and what the fronts then show."""

from __future__ import annotations

from pathlib import Path

import pytest

from tipc.doctor.checks import State
from tipc.doctor.target import check_scripts
from tipc.errors import ConfigError, SettingsError
from tipc.plan.model import PlanOptions
from tipc.suites import front, registry
from tipc.suites.tags import model_tags

CLAS_CONFIG = """\
===========================train_params===========================
model_name:ResNet18
python:python3.7
gpu_list:0
-o Global.device:gpu
-o Global.auto_cast:null
-o Global.epochs:lite_train_lite_infer=2|whole_train_whole_infer=120
-o Global.output_dir:./output/
-o DataLoader.Train.sampler.batch_size:8
-o Global.pretrained_model:null
train_model_name:latest
train_infer_img_dir:./dataset/ILSVRC2012/val
null:null
##
trainer:norm_train
norm_train:tools/train.py -c ppcls/configs/ImageNet/ResNet/ResNet18.yaml -o Global.seed=1234
pact_train:null
fpgm_train:null
distill_train:null
null:null
null:null
##
===========================eval_params===========================
eval:null
null:null
##
===========================infer_params==========================
-o Global.save_inference_dir:./inference
-o Global.pretrained_model:
norm_export:tools/export_model.py -c ppcls/configs/ImageNet/ResNet/ResNet18.yaml
quant_export:null
fpgm_export:null
distill_export:null
kl_quant:null
export2:null
pretrained_model_url:null
infer_model:../inference/
infer_export:True
infer_quant:Fasle
inference:python/predict_cls.py -c configs/inference_cls.yaml
-o Global.use_gpu:True|False
-o Global.enable_mkldnn:False
-o Global.cpu_num_threads:1
-o Global.batch_size:1
-o Global.use_tensorrt:False
-o Global.use_fp16:False
-o Global.inference_model_dir:../inference
-o Global.infer_imgs:../dataset/ILSVRC2012/val/ILSVRC2012_val_00000001.JPEG
-o Global.save_log_path:null
-o Global.benchmark:False
null:null
null:null
"""


def clas_checkout(root: Path) -> Path:
    (root / "ppcls").mkdir(parents=True)
    config = root / "test_tipc" / "configs" / "ResNet" / "ResNet18_train_infer_python.txt"
    config.parent.mkdir(parents=True)
    config.write_text(CLAS_CONFIG)
    return config


def test_the_checkout_names_the_dialect_and_the_plan_says_so(tmp_path: Path) -> None:
    config = clas_checkout(tmp_path)
    plan = front.plan_path(config, PlanOptions("lite_train_lite_infer", repo=str(tmp_path), python="py"))
    assert f"suite PaddleClas: detected from the checkout's ppcls/ folder ({tmp_path})" in plan.notes
    train = next(plan.stages())
    assert train.argv[:3] == ("py", "tools/train.py", "-c")
    assert train.argv[-2:] == ("-o", "Global.print_mem_info=True")
    assert [s.name for s in plan.stages()][-2:] == ["infer[gpu-trt_False-False-bs1]", "infer[cpu-mkldnn_False-threads_1-False-bs1]"]  # fmt: skip
    assert {s.cwd for s in plan.stages() if s.kind == "infer"} == {f"{tmp_path}/deploy"}


def test_a_named_suite_wins_and_an_unknown_one_is_the_runs_error(tmp_path: Path) -> None:
    config = clas_checkout(tmp_path)
    assert front.load(config, "paddleclas").note == "suite PaddleClas: named with --suite"
    with pytest.raises(SettingsError) as error:
        front.load(config, "PaddleNLP")
    known = ", ".join(d.name for d in registry.dialects())  # the built-ins and the tipc entry points' dialects
    assert str(error.value) == f"--suite PaddleNLP: no such suite dialect; expected one of {known}"
    assert {"PaddleOCR", "PaddleClas", "PaddleDetection", "PaddleSeg", "generic"} <= set(known.split(", "))


def test_a_config_outside_any_known_checkout_reads_as_paddleocrs_without_a_note() -> None:
    config = Path(__file__).resolve().parents[2] / "test_configs/tinyrec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"  # fmt: skip
    loaded = front.load(config)
    assert (loaded.dialect.name, loaded.note) == ("PaddleOCR", "")


def test_a_mode_the_suites_bash_does_not_run_is_refused_naming_the_modes(tmp_path: Path) -> None:
    loaded = front.load(clas_checkout(tmp_path))
    with pytest.raises(ConfigError) as error:
        front.check_mode(loaded, "whole_infer")
    assert "PaddleClas's bash runs nothing for this config in it: expected one of lite_train_lite_infer" in str(
        error.value
    )


@pytest.mark.parametrize(
    ("name", "tags"),
    [
        ("ResNet50_vd_train_infer_python.txt", ("linux_gpu", "normal")),
        ("ResNet50_vd_train_amp_infer_python.txt", ("linux_gpu", "amp")),
        ("ResNet50_vd_train_pact_infer_python.txt", ("linux_gpu", "normal", "pact")),
        ("ResNet50_vd_train_linux_gpu_fleet_amp_infer_python_linux_gpu_cpu.txt", ("linux_gpu", "fleet", "amp")),
        ("train_infer_python.txt", ("linux_gpu", "normal")),
        ("ResNet50_linux_gpu_normal_normal_serving_python_linux_gpu_cpu.txt", ()),
    ],
    ids=["short", "amp", "pact", "fleet-amp", "paddleseg", "not-a-train-config"],
)
def test_tags_follow_each_suites_naming(name: str, tags: tuple[str, ...]) -> None:
    assert model_tags(name) == tags


def test_the_doctor_finds_the_suites_scripts_where_the_stages_run_them(tmp_path: Path) -> None:
    config = clas_checkout(tmp_path)
    plan = front.plan_path(config, PlanOptions("lite_train_lite_infer", repo=str(tmp_path), python="py"))
    for script in ("tools/train.py", "tools/export_model.py", "deploy/python/predict_cls.py"):
        (tmp_path / script).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / script).write_text("")
    assert check_scripts(plan).state is State.PASS
    (tmp_path / "deploy/python/predict_cls.py").unlink()  # the predictor runs from deploy/
    assert "missing in" in check_scripts(plan).detail and "deploy/python/predict_cls.py" in check_scripts(plan).detail


def test_a_paddle2onnx_config_in_any_suites_checkout_plans_in_its_mode(tmp_path: Path) -> None:
    """tipc.dialects.paddleocr.config.paddle2onnx knows every suite's layout of that section, so the checkout's dialect
    does not read it: a PaddleClas checkout's paddle2onnx config plans as PaddleOCR's formats do."""
    clas_checkout(tmp_path)
    p2o = tmp_path / "test_tipc" / "configs" / "ResNet" / "ResNet18_paddle2onnx_python_linux_cpu.txt"
    p2o.write_text(
        "===========================paddle2onnx_params===========================\n"
        "model_name:x_rec\npython:python3.7\n2onnx: paddle2onnx\n--det_model_dir:\n--model_filename:inference.json\n"
        "--params_filename:inference.pdiparams\n--det_save_file:\n--rec_model_dir:./inference/rec/\n"
        "--rec_save_file:./inference/rec_onnx/model.onnx\n--opset_version:11\n--enable_onnx_checker:True\n"
        "inference:tools/infer/predict_rec.py\n--use_gpu:False\n--det_model_dir:\n--rec_model_dir:\n--image_dir:./imgs\n"
    )
    plan = front.plan_path(p2o, PlanOptions("paddle2onnx_infer", repo=str(tmp_path), python="py"))
    assert next(s.name for s in plan.stages()) == "convert_rec"
    assert front.load(p2o).note.startswith("suite PaddleClas: detected")
