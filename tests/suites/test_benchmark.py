"""benchmark_train for a suite dialect: the script's runs and its edits of the config copy, as data."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.suites.test_front import CLAS_CONFIG, clas_checkout
from tipc.config.benchmark import DeviceNum, parse_selectors
from tipc.config.modes import Mode
from tipc.dialects.paddleclas import planner as paddleclas
from tipc.dialects.paddleseg import planner as paddleseg
from tipc.errors import ConfigError
from tipc.plan.model import BenchmarkOptions, PlanOptions
from tipc.suites import front
from tipc.suites.benchmark import Layout, Run, Section, runs

SECTION = Section(("8", "16"), ("fp32", "fp16"), "1", ("norm_train", "to_static_train"), "4", "--p:a=1;b=2", ())
N1C4 = DeviceNum(1, 4)
CLAS, SEG = paddleclas.BENCH.layout, paddleseg.BENCH.layout
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
    ("layout", "params", "expected"),
    [
        (
            CLAS,
            "",
            [
                Run(bs, fp, "DP", N1C4, mt)
                for bs in ("8", "16")
                for fp in ("fp32", "fp16")
                for mt in ("norm_train", "to_static_train")
            ],
        ),
        (CLAS, "dynamic_bs4_null_DP_N1C1", [Run("4", "fp32", "DP", DeviceNum(1, 1), "norm_train")]),
        (CLAS, "dynamicTostatic_bs4_amp_DP_N1C8", [Run("4", "amp", "DP", DeviceNum(1, 8), "to_static_train")]),
        (CLAS, "dynamicTostatic", []),  # PaddleClas's script then sets no model type list: it loops over none
        (
            SEG,
            "",
            [
                Run(bs, fp, "DP", DeviceNum(1, cards), "norm_train")
                for bs in ("8", "16")
                for fp in ("fp32", "fp16")
                for cards in (1, 8)
            ],
        ),
        (
            SEG,
            "dynamicTostatic",  # PaddleSeg's rewrites the trainer line and runs the section's lists
            [
                Run(bs, fp, "DP", DeviceNum(1, cards), "to_static_train")
                for bs in ("8", "16")
                for fp in ("fp32", "fp16")
                for cards in (1, 8)
            ],
        ),
    ],
    ids=[
        "clas-section-lists-on-N1C4",
        "null-precision-is-fp32",
        "to-static-word",
        "clas-bare-dynamicTostatic",
        "seg-section-lists-on-N1C1-and-N1C8",
        "seg-bare-dynamicTostatic",
    ],
)
def test_the_scripts_runs(layout: Layout, params: str, expected: list[Run]) -> None:
    section = SECTION if layout is CLAS else Section(("8", "16"), ("fp32", "fp16"), "1", ("norm_train",), "", "", ())
    assert list(runs(section, parse_selectors(params) if params else (), layout)) == expected


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


HEADER = "=" * 20


def checkout_config(root: Path, marker: str, name: str, lines: list[str]) -> Path:
    """A suite checkout (its marker folder) with one config of these lines."""
    (root / marker).mkdir(parents=True)
    config = root / "test_tipc" / "configs" / "tiny" / name
    config.parent.mkdir(parents=True)
    config.write_text("\n".join(lines))
    return config


def trainers(train: str, evaluate: str) -> list[str]:
    """Entries 14-25, the same in both suites: the norm trainer only, then the eval section."""
    nulls = ("pact_train", "fpgm_train", "distill_train", "null", "null")
    return ["trainer:norm_train", f"norm_train:{train}", *(f"{k}:null" for k in nulls), "##",
            f"{HEADER}eval_params{HEADER}", f"eval:{evaluate}", "null:null", "##"]  # fmt: skip


def seg_config(root: Path) -> Path:
    """A PaddleSeg-style checkout whose config has the section and its extra-arguments line."""
    yml = "--config test_tipc/configs/tiny_seg/tiny.yml"
    header = HEADER
    return checkout_config(
        root,
        "paddleseg",
        "train_infer_python.txt",
        [
            f"{header}train_params{header}", "model_name:tiny_seg", "python:python", "gpu_list:0",
            "--device:gpu", "--precision:null", "--iters:lite_train_lite_infer=10|whole_train_whole_infer=100",
            "--save_dir:", "--batch_size:lite_train_lite_infer=2|whole_train_whole_infer=4",
            "--model_path:null", "train_model_name:best_model/model.pdparams",
            "train_infer_img_dir:test_tipc/data/val.list", "null:null", "##",
            *trainers(f"tools/train.py {yml}", f"tools/val.py {yml}"),
            f"{header}export_params{header}", "--save_dir:", "--model_path:",
            f"norm_export:tools/export.py {yml}", *(f"{k}:null" for k in ("quant_export", "fpgm_export",
            "distill_export", "export1", "export2")), f"{header}infer_params{header}",
            "infer_model:null", "infer_export:null", "infer_quant:False", "inference:deploy/python/infer.py",
            "--device:cpu", "--enable_mkldnn:False", "--cpu_threads:1", "--batch_size:1", "--use_trt:False",
            "--precision:fp32", "--config:", "--image_path:test_tipc/data/val.list", "--save_log_path:null",
            "--benchmark:True", "--save_dir:", "--model_name:tiny_seg",
            f"{header}to_static_train_benchmark_params{header}", "to_static_train:--opts to_static_training=True",
            f"{header}train_benchmark_params{header}", "batch_size:4", "fp_items:fp32|fp16", "epoch:50",
            "--profiler_options:'batch_range=[10,20];state=GPU'", "flags:FLAGS_cudnn_deterministic=False",
            "log_iters:5;repeats:20", "",
        ],
    )  # fmt: skip


def test_paddlesegs_to_static_run_rewrites_the_trainer_and_adds_its_extra_arguments(tmp_path: Path) -> None:
    found = plan(seg_config(tmp_path / "PaddleSeg"), "dynamicTostatic_bs8_fp16_DP_N1C1")
    profile, train = found.stages()
    assert [s.id for s in (profile, train)] == [
        "to_static_train-bs8-fp16-DP-N1C1::profile",
        "to_static_train-bs8-fp16-DP-N1C1::train",
    ]
    assert train.argv[1:] == (
        "tools/train.py", "--config", "test_tipc/configs/tiny_seg/tiny.yml", "--opts", "to_static_training=True",
        "--device=gpu", "--save_dir=./test_tipc/output/tiny_seg/benchmark_train/to_static_train_gpus_0_autocast_fp16",
        "--iters=50", "--precision=fp16", "--batch_size=8", "--amp_level=O2", "--log_iters", "5", "--repeats", "20",
    )  # fmt: skip
    assert "--profiler_options='batch_range=[10,20];state=GPU'" in profile.argv
    assert train.log == "/logs/train_log/PaddleSeg_tiny_seg_bs8_fp16_DP_N1C1_d2sT_log"
    assert train.env["FLAGS_cudnn_deterministic"] == "False"
    assert train.speed is not None and train.speed.speed_unit == "samples/s"


def test_paddleseg_without_params_runs_the_section_on_one_and_eight_cards(tmp_path: Path) -> None:
    config = seg_config(tmp_path / "PaddleSeg")
    assert Mode.BENCHMARK_TRAIN in front.modes(front.load(config))
    found = plan(config)
    assert [c.id for c in found.chains] == [
        f"norm_train-bs4-{fp}-DP-{device}" for fp in ("fp32", "fp16") for device in ("N1C1", "N1C8")
    ]
    eight = found.chains[1].stages
    assert [s.name for s in eight] == ["train"]  # no profiling pass on several cards
    assert eight[0].argv[1:4] == ("-m", "paddle.distributed.launch", "--devices=0,1,2,3,4,5,6,7")
    assert eight[0].speed is not None and eight[0].speed.speed_unit == "images/s"
    assert any("the section lists on N1C1 N1C8" in n for n in found.notes)


def det_config(root: Path, model: str) -> Path:
    """A PaddleDetection-style checkout whose config has the section (with its repeat line), no to-static one."""
    yml = f"-c configs/tiny/{model}.yml -o"
    header = HEADER
    return checkout_config(
        root,
        "ppdet",
        f"{model}_train_infer_python.txt",
        [
            f"{header}train_params{header}", f"model_name:{model}", "python:python", "gpu_list:0",
            "use_gpu:True", "auto_cast:null", "epoch:lite_train_lite_infer=1|whole_train_whole_infer=12",
            "save_dir:null", "TrainReader.batch_size:lite_train_lite_infer=2|whole_train_whole_infer=2",
            "pretrain_weights:null", "trained_model_name:model_final.pdparams",
            "train_infer_img_dir:./dataset/coco/test2017/", "filename:null", "##",
            *trainers(f"tools/train.py {yml}", f"tools/eval.py {yml}"),
            f"{header}infer_params{header}", "--output_dir:./output_inference",
            "weights:null", f"norm_export:tools/export_model.py {yml}", *(f"{k}:null" for k in ("pact_export",
            "fpgm_export", "distill_export", "export1", "export2", "kl_quant_export")), "##", "infer_mode:norm",
            "infer_quant:False", "inference:./deploy/python/infer.py", "--device:cpu", "--enable_mkldnn:False",
            "--cpu_threads:1", "--batch_size:1", "--use_tensorrt:null", "--run_mode:paddle", "--model_dir:",
            "--image_dir:./dataset/coco/test2017/", "--save_log_path:null", "--run_benchmark:False", "null:null",
            f"{header}train_benchmark_params{header}", "batch_size:2|8", "fp_items:fp32", "epoch:3", "repeat:2",
            "--profiler_options:batch_range=[10,20];state=GPU", "flags:null", "",
        ],
    )  # fmt: skip


def test_paddledetection_trains_one_epoch_on_n1c4_and_names_the_data_set_repeat_it_does_not_set(
    tmp_path: Path,
) -> None:
    found = plan(det_config(tmp_path / "PaddleDetection", "tiny_yolo"))
    assert [c.id for c in found.chains] == ["norm_train-bs2-fp32-DP-N1C4", "norm_train-bs8-fp32-DP-N1C4"]
    (train,) = found.chains[0].stages
    assert train.argv[1:4] == ("-m", "paddle.distributed.launch", "--gpus=0,1,2,3")
    assert "epoch=1" in train.argv and "TrainReader.batch_size=2" in train.argv and "--enable_ce=True" in train.argv
    assert train.env.get("null") is None  # 'flags:null' sets no variable
    assert any("sets 'repeat: 8' (the section's repeat × 4 cards)" in n for n in found.notes)


def test_paddledetections_full_data_models_train_the_sections_epoch_times_the_cards(tmp_path: Path) -> None:
    config = det_config(tmp_path / "PaddleDetection", "tinypose_128x96")
    (train,) = plan(config, "dynamic_bs4_fp32_DP_N1C8").stages()
    assert "epoch=24" in train.argv  # the section's 3 × 8 cards
    found = plan(config, "dynamic_bs4_fp32_DP_N1C1")
    profile, train = found.stages()
    assert "epoch=3" in train.argv and "--profiler_options=batch_range=[10,20];state=GPU" in profile.argv
    assert train.speed is not None and train.speed.speed_unit == "images/s"  # its analysis step's unit everywhere
    assert not any("repeat" in n for n in found.notes)


def test_paddledetection_to_static_without_its_section_trains_nothing_and_says_so(tmp_path: Path) -> None:
    found = plan(det_config(tmp_path / "PaddleDetection", "tiny_yolo"), "dynamicTostatic_bs4_fp32_DP_N1C1")
    assert list(found.stages()) == []
    assert any(s.id == "to_static_train-bs4-fp32-DP-N1C1" for s in found.skipped)
