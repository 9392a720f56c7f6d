"""Configs for plan tests: a PP-OCRv3-rec-shaped template whose lines are overridden by role."""

from __future__ import annotations

from tipc.config import parse_config_text
from tipc.config.model import TipcConfig

PATH = "cfgs/rec/train_infer_python.txt"
YML = "test_tipc/configs/rec/rec.yml"

# (role, line) in file order; a role of None is a header or placeholder line.
TEMPLATE = (
    (None, "===========================train_params==========================="),
    ("model_name", "model_name:rec"),
    ("python", "python:python"),
    ("gpu_list", "gpu_list:0|0,1"),
    ("train_use_gpu", "Global.use_gpu:True|True"),
    ("autocast", "Global.auto_cast:fp32"),
    ("epoch", "Global.epoch_num:lite_train_lite_infer=3|whole_train_whole_infer=50"),
    ("save_model_dir", "Global.save_model_dir:./output/"),
    ("train_batch", "Train.loader.batch_size_per_card:lite_train_lite_infer=16|whole_train_whole_infer=128"),
    ("pretrained_model", "Global.pretrained_model:null"),
    ("train_model_name", "train_model_name:latest"),
    ("train_infer_img_dir", "train_infer_img_dir:./inference/rec_inference"),
    ("train_param1", "null:null"),
    (None, "##"),
    ("trainer", "trainer:norm_train"),
    ("norm_train", f"norm_train:tools/train.py -c {YML} -o Global.print_batch_step=1 Train.loader.shuffle=false"),
    ("pact_train", "pact_train:null"),
    ("fpgm_train", "fpgm_train:null"),
    ("distill_train", "distill_train:null"),
    ("to_static_slot", "to_static_train:Global.to_static=true"),
    ("custom_train", "null:null"),
    (None, "##"),
    (None, "===========================eval_params==========================="),
    ("eval", "eval:null"),
    ("eval_param1", "null:null"),
    (None, "##"),
    (None, "===========================infer_params==========================="),
    ("save_inference_dir", "Global.save_inference_dir:./output/"),
    ("checkpoints", "Global.checkpoints:"),
    ("norm_export", f"norm_export:tools/export_model.py -c {YML} -o"),
    ("quant_export", "quant_export:null"),
    ("fpgm_export", "fpgm_export:null"),
    ("distill_export", "distill_export:null"),
    ("export1", "export1:null"),
    ("export2", "export2:null"),
    ("inference_dir", "inference_dir:Student"),
    ("infer_model", "infer_model:./inference/rec_infer"),
    ("infer_export", "infer_export:null"),
    ("infer_quant", "infer_quant:False"),
    ("inference", 'inference:tools/infer/predict_rec.py --rec_image_shape="3,48,320"'),
    ("infer_use_gpu", "--use_gpu:True|False"),
    ("enable_mkldnn", "--enable_mkldnn:False"),
    ("cpu_threads", "--cpu_threads:6"),
    ("batch_size", "--rec_batch_num:1"),
    ("use_tensorrt", "--use_tensorrt:False"),
    ("precision", "--precision:fp32"),
    ("model_dir", "--rec_model_dir:"),
    ("image_dir", "--image_dir:./inference/rec_inference"),
    ("save_log", "null:null"),
    ("benchmark", "--benchmark:True"),
    ("infer_param1", "null:null"),
)
TO_STATIC_SECTION = ("===========================to_static_train_benchmark_params===========================",
                     "to_static_train:Global.to_static=true")
ROLES = {role for role, _ in TEMPLATE if role}


def config_text(to_static: bool = False, **lines: str) -> str:
    """The template with ``role="key:value"`` overrides (an empty string removes the line)."""
    unknown = set(lines) - ROLES
    assert not unknown, f"unknown roles {unknown}"
    out = [lines.get(role, text) if role else text for role, text in TEMPLATE]
    if to_static:
        out += TO_STATIC_SECTION
    return "\n".join(line for line in out if line) + "\n"


def make_config(to_static: bool = False, **lines: str) -> TipcConfig:
    return parse_config_text(config_text(to_static, **lines), PATH)


def make_plan(mode: str = "lite_train_lite_infer", to_static: bool = False, options: dict | None = None,
              **lines: str):
    """Plan of the template config with a fixed interpreter ``py``."""
    from tipc.plan import PlanOptions, build_plan

    return build_plan(make_config(to_static, **lines), PlanOptions(mode, python="py", **(options or {})))
