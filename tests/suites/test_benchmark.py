"""benchmark_train for a suite dialect: the script's runs and its edits of the config copy, as data."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.suites.test_front import CLAS_CONFIG, clas_checkout
from tipc.config.benchmark import DeviceNum, parse_selectors
from tipc.config.modes import Mode
from tipc.errors import ConfigError
from tipc.plan.model import BenchmarkOptions, PlanOptions
from tipc.suites import front
from tipc.suites.benchmark import Run, Section, runs

SECTION = Section(("8", "16"), ("fp32", "fp16"), "1", ("norm_train", "to_static_train"), "4", "--p:a=1;b=2", ())
N1C4 = DeviceNum(1, 4)
BENCH_SECTION = """\
===========================train_benchmark_params==========================
batch_size:8
fp_items:fp32
epoch:1
model_type:norm_train
num_workers:4
--profiler_options:batch_range=[10,20];state=GPU
flags:FLAGS_cudnn_exhaustive_search=1
===========================infer_benchmark_params==========================
"""


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (
            "",
            [
                Run(bs, fp, "DP", N1C4, mt)
                for bs in ("8", "16")
                for fp in ("fp32", "fp16")
                for mt in ("norm_train", "to_static_train")
            ],
        ),
        ("dynamic_bs4_null_DP_N1C1", [Run("4", "fp32", "DP", DeviceNum(1, 1), "norm_train")]),
        ("dynamicTostatic_bs4_amp_DP_N1C8", [Run("4", "amp", "DP", DeviceNum(1, 8), "to_static_train")]),
        ("dynamicTostatic", []),  # the script then sets no model type list: it loops over none
    ],
    ids=["section-lists-on-N1C4", "null-precision-is-fp32", "to-static-word", "bare-dynamicTostatic"],
)
def test_the_scripts_runs(params: str, expected: list[Run]) -> None:
    assert list(runs(SECTION, parse_selectors(params) if params else ())) == expected


def plan(config: Path, params: str = ""):
    selectors = parse_selectors(params) if params else ()
    options = PlanOptions(Mode.BENCHMARK_TRAIN, repo=str(config.parents[3]), python="python",
                          benchmark=BenchmarkOptions(selectors, "/logs"))  # fmt: skip
    return front.plan_path(config, options, lambda name: "")


def test_a_one_card_run_is_profiled_then_timed_with_the_sections_edits(tmp_path: Path) -> None:
    config = clas_checkout(tmp_path / "PaddleClas")
    config.write_text(CLAS_CONFIG.replace("-o Global.seed=1234", "-o Global.seed=1234 -o DataLoader.Train."
                                          "loader.num_workers=0") + BENCH_SECTION)  # fmt: skip
    found = plan(config, "dynamic_bs8_fp32_DP_N1C1")
    profile, train = found.stages()
    assert [s.id for s in (profile, train)] == [
        "norm_train-bs8-fp32-DP-N1C1::profile",
        "norm_train-bs8-fp32-DP-N1C1::train",
    ]
    assert profile.log == "/logs/profiling_log/PaddleClas_ResNet18_bs8_fp32_DP_N1C1_profiling"
    assert "--profiler_options=batch_range=[10,20];state=GPU" in profile.argv and profile.outputs == ()
    assert train.log == "/logs/train_log/PaddleClas_ResNet18_bs8_fp32_DP_N1C1_log"
    assert "-o" in train.argv and "DataLoader.Train.loader.num_workers=4" in train.argv
    assert not any(a.startswith("--profiler_options") for a in train.argv)
    assert train.env["FLAGS_cudnn_exhaustive_search"] == "1" and profile.env["FLAGS_cudnn_exhaustive_search"] == "1"
    assert train.speed is not None and (train.speed.file, train.speed.speed_unit) == (
        "/logs/index/PaddleClas_ResNet18_bs8_fp32_DP_N1C1_speed",
        "samples/s",
    )
    assert any(n.startswith("benchmark_train: 1 runs from train_benchmark_params") for n in found.notes)


def test_a_config_without_the_section_does_not_run_benchmark_train(tmp_path: Path) -> None:
    config = clas_checkout(tmp_path / "PaddleClas")
    assert Mode.BENCHMARK_TRAIN not in front.modes(front.load(config))
    with pytest.raises(ConfigError, match=r"tipc does not plan PaddleClas.s benchmark_train\.sh for this config"):
        plan(config)


def test_a_section_whose_profiler_option_would_land_in_the_train_command_is_refused(tmp_path: Path) -> None:
    config = clas_checkout(tmp_path / "PaddleClas")
    shifted = BENCH_SECTION.replace("num_workers:4\n", "")
    config.write_text(CLAS_CONFIG.replace("-o Global.seed=1234", "-o Global.seed=1234 -o DataLoader.Train."
                                          "loader.num_workers=0") + shifted)  # fmt: skip
    with pytest.raises(ConfigError, match=r"expected 'num_workers:<n>' here, found '--profiler_options:") as caught:
        plan(config)
    assert caught.value.line == CLAS_CONFIG.count("\n") + 6
