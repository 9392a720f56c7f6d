"""Every path tipc derives from config values stays inside the output root (see tipc.plan.naming)."""

from __future__ import annotations

import os

import pytest

from tests.support.plan_factory import make_plan
from tipc.dialects.paddleocr.config.formats import PADDLEOCR_MODES
from tipc.files.write import NAME_BYTES, component, name_part
from tipc.plan import Plan

ROOT = "./test_tipc/output"


def derived_paths(plan: Plan) -> list[str]:
    """The output dir, save dirs, stage logs, the bash's log names and the train-log copy of a plan."""
    paths = [plan.output_dir, *(chain.save_dir for chain in plan.chains if chain.save_dir)]
    for stage in plan.stages():
        paths += [
            stage.log,
            stage.legacy_log,
            *(stage.copy_train_log or ()),
            *((stage.speed.file,) if stage.speed else ()),
        ]
    return paths


def assert_contained(plan: Plan) -> None:
    for path in derived_paths(plan):
        parts = path.removeprefix(ROOT + "/").split("/")
        assert path.startswith(ROOT + "/") and ".." not in parts and "." not in parts, path
        assert os.path.normpath(path).startswith(os.path.normpath(ROOT) + os.sep), path
        assert all(len(part.encode()) <= 255 for part in parts), path


@pytest.mark.parametrize(
    ("model", "folder"),
    [
        ("../x", "..%2Fx"),
        ("a/b", "a%2Fb"),
        ("..", "%2E%2E"),
        (".", "%2E"),
        ("/etc/x", "%2Fetc%2Fx"),
        ("../../../../../../tmp/x", "..%2F..%2F..%2F..%2F..%2F..%2Ftmp%2Fx"),
        ("50%2Fx", "50%252Fx"),
        ("rec", "rec"),
    ],
    ids=["parent", "nested", "dot-dot", "dot", "absolute", "deep-parent", "percent", "ordinary"],
)
@pytest.mark.parametrize("mode", PADDLEOCR_MODES)
def test_model_name_is_one_folder_inside_the_output_root(model, folder, mode):
    plan = make_plan(mode, model_name=f"model_name:{model}")
    assert plan.output_dir == f"{ROOT}/{folder}/{mode}"
    assert plan.model == model  # status lines and reports still name the model as written
    assert_contained(plan)


@pytest.mark.parametrize(
    "lines",
    [
        {"trainer": "trainer:../../t"},
        {"trainer": "trainer:a/b|a%2Fb"},
        {"autocast": "Global.auto_cast:../../fp32|/abs"},
        {"cpu_threads": "--cpu_threads:1/../../x"},
        {"enable_mkldnn": "--enable_mkldnn:../True"},
        {"precision": "--precision:fp32/../../..|.."},
        {"batch_size": "--rec_batch_num:../1"},
        {"use_tensorrt": "--use_tensorrt:False/.."},
        {"trainer": "trainer:" + "t" * 300, "autocast": "Global.auto_cast:" + "é" * 300},
    ],
    ids=[
        "trainer-parent",
        "trainer-slash-and-its-escape",
        "autocast",
        "cpu-threads",
        "mkldnn",
        "precision",
        "batch",
        "trt",
        "long-names",
    ],
)
@pytest.mark.parametrize("mode", PADDLEOCR_MODES)
def test_trainer_and_infer_values_stay_inside_the_output_root(lines, mode):
    plan = make_plan(mode, **lines)
    assert_contained(plan)
    logs = [stage.log for stage in plan.stages()]
    assert len(logs) == len(set(logs))  # escaping never makes two values one name


def test_a_value_with_slashes_is_escaped_in_its_log_name_only():
    plan = make_plan(cpu_threads="--cpu_threads:1/../../x")
    stage = next(s for s in plan.stages() if s.infer and s.infer.device == "cpu")
    assert stage.log == (
        f"{ROOT}/rec/lite_train_lite_infer/python_infer_cpu_gpus_0_usemkldnn_False_"
        "threads_1%2F..%2F..%2Fx_precision_fp32_batchsize_1.log"
    )
    assert "--cpu_threads=1/../../x" in stage.argv  # the predictor gets the value as written


@pytest.mark.parametrize(
    ("name", "suffix", "expected"),
    [
        ("norm_train_gpus_0", ".log", "norm_train_gpus_0.log"),
        (".", "", "%2E"),
        ("..", ".log", "%2E%2E.log"),
    ],
    ids=["ordinary", "dot", "dot-dot"],
)
def test_component_spells_ordinary_names_as_they_are(name, suffix, expected):
    assert component(name, suffix) == expected


@pytest.mark.parametrize("name", ["t" * 500, "é" * 300, "t" * 199 + "é"], ids=["ascii", "two-byte", "cut-mid-char"])
def test_component_cuts_long_names_and_keeps_them_apart(name):
    short = component(name, ".log")
    assert len(short.encode()) <= NAME_BYTES and short.endswith(".log")
    assert short != component(name + "x", ".log")


def test_name_part_escapes_only_percent_and_slash():
    assert name_part("a/b%c d..e") == "a%2Fb%25c d..e"
