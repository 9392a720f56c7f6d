"""``--device npu`` / ``--device xpu``: a config read as the suite's device script rewrites it, never touched on
disk; the plan says so and names what the script does that tipc does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.suites.test_front import clas_checkout
from tipc.cli.main import main
from tipc.errors import ConfigError
from tipc.plan.model import PlanOptions
from tipc.suites import front
from tipc.suites.dialect import Dialect
from tipc.suites.variants import Rewrite, Variant, apply_variant, rewrite

MODE = "lite_train_lite_infer"


@pytest.mark.parametrize(
    ("rule", "model", "lines", "expected"),
    [
        (
            Rewrite("use_gpu", "use_npu"),
            "m",
            ["-o Global.use_gpu:True|False", "x"],
            ["-o Global.use_npu:True|False", "x"],
        ),
        (Rewrite("gpu_list:0|0,1", "gpu_list:0,1", ("slow",)), "fast", ["gpu_list:0|0,1"], ["gpu_list:0|0,1"]),
        (Rewrite("gpu_list:0|0,1", "gpu_list:0,1", ("slow",)), "slow", ["gpu_list:0|0,1"], ["gpu_list:0,1"]),
        (
            Rewrite("", " -o Global.use_gpu=False", line=2),
            "m",
            ["a", "b", "c"],
            ["a", "b -o Global.use_gpu=False", "c"],
        ),
    ],
    ids=["every-occurrence", "another-models-rule", "this-models-rule", "appended-to-a-line"],
)
def test_a_rewrite_changes_what_the_script_changes(rule, model, lines, expected):
    texts = list(lines)
    rewrite(model, texts, list(range(1, len(texts) + 1)), Variant((rule,)))
    assert texts == expected


def test_a_clas_config_on_an_npu_plans_the_npu_scripts_commands_and_leaves_the_file_alone(tmp_path: Path) -> None:
    config = clas_checkout(tmp_path)
    before = config.read_bytes()
    options = PlanOptions(MODE, repo=str(tmp_path), python="py", device="npu")
    plan = front.plan_path(config, options)
    train, *_, gpu_infer, cpu_infer = plan.stages()
    assert "Global.device=npu" in train.argv
    assert "Global.use_npu=True" in gpu_infer.argv and "Global.use_npu=False" in cpu_infer.argv
    assert any(n.startswith("--device npu: read as the suite's test_train_inference_python_npu.sh") for n in plan.notes)
    assert any("tipc never edits the checkout" in n for n in plan.notes)
    assert config.read_bytes() == before


def test_the_device_option_reaches_the_plan_on_the_command_line(tmp_path: Path, capsys) -> None:
    config = clas_checkout(tmp_path)
    argv = ["plan", "--config", str(config), "--mode", MODE, "--repo", str(tmp_path), "--python", "py"]
    assert main([*argv, "--device", "xpu"]) == 0
    shown = capsys.readouterr().out
    assert "Global.device=xpu" in shown and "--device xpu: read as" in shown


def test_a_suite_without_that_device_script_is_a_config_error_naming_it(tmp_path: Path) -> None:
    config = clas_checkout(tmp_path)
    loaded = front.load(config)
    with pytest.raises(ConfigError, match="ships no npu script"):
        apply_variant(loaded.config, "PaddleX", {}, "npu")


def test_cpu_and_gpu_read_the_config_as_it_is(tmp_path: Path) -> None:
    loaded = front.load(clas_checkout(tmp_path))
    dialect: Dialect = loaded.dialect
    for device in ("cpu", "gpu", "auto", ""):
        assert apply_variant(loaded.config, dialect.name, dialect.devices, device) == (loaded.config, ())
