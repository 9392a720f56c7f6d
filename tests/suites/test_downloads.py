"""Weights a stage would download stop a run before it starts, naming the line and the ``--set`` way out
(``tipc.suites.downloads``); ``tipc plan`` and a dry run still show what the bash would run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.suites.test_front import clas_checkout
from tests.suites.test_prepare import det_checkout
from tests.support.fake_target import CPU_CONFIG
from tipc.cli.main import main
from tipc.plan.model import PlanOptions
from tipc.suites import front
from tipc.suites.downloads import download_refusal
from tipc.suites.sets import parse_sets

URL = "https://example.invalid/ResNet18_pretrained.pdparams"
TINYREC = (
    Path(__file__).resolve().parents[2]
    / "test_configs/tinyrec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"
)


def plan_of(config: Path, repo: Path, *sets: str):
    options = PlanOptions("lite_train_lite_infer", repo=str(repo), python="py", sets=parse_sets(sets))  # type: ignore[arg-type]
    return front.plan_path(config, options)


def test_a_url_a_stage_would_load_is_refused_at_its_line(tmp_path: Path) -> None:
    config = tmp_path / TINYREC.name
    config.write_text(TINYREC.read_text())
    assert download_refusal(plan_of(config, tmp_path)) is None
    pretrained = "Global.pretrained_model:./pretrained/rec_tiny_distillation"
    config.write_text(TINYREC.read_text().replace(pretrained, f"Global.pretrained_model:{URL}"))
    refusal = download_refusal(plan_of(config, tmp_path))
    assert refusal is not None and (refusal.path, refusal.line) == (str(config), 10)
    assert refusal.message.startswith(f"Global.pretrained_model: '{URL}' is a URL: norm_train-gpus_-1-fp32::train")
    assert "--set Global.pretrained_model=null runs without them" in refusal.message
    assert download_refusal(plan_of(config, tmp_path, "Global.pretrained_model=null")) is None


def test_a_url_that_reaches_no_stage_is_not_refused(tmp_path: Path) -> None:
    config = clas_checkout(tmp_path)
    config.write_text(config.read_text().replace("pretrained_model_url:null", f"pretrained_model_url:{URL}"))
    plan = front.plan_path(config, PlanOptions("lite_train_lite_infer", repo=str(tmp_path), python="py"))  # type: ignore[arg-type]
    assert download_refusal(plan) is None


def test_tipc_run_stops_before_any_stage_and_a_set_null_runs(fake_repo: Path, capsys) -> None:
    argv = ["run", "--config", str(fake_repo / CPU_CONFIG), "--mode", "lite_train_lite_infer", "--python",
            sys.executable, "--no-report"]  # fmt: skip
    assert main([*argv, "--set", f"Global.pretrained_model={URL}"]) == 2
    err = capsys.readouterr().err
    assert f"{fake_repo / CPU_CONFIG}: --set Global.pretrained_model: '{URL}' is a URL" in err
    assert not (fake_repo / "test_tipc" / "output").exists()  # nothing ran, nothing was written
    assert main([*argv, "--set", "Global.pretrained_model=null"]) == 0


def det_config(tmp_path: Path, pretrain: str, base_weights: str = URL) -> Path:
    """A PaddleDetection checkout whose model yml takes pretrain_weights from its _BASE_ file."""
    config = det_checkout(tmp_path, "_BASE_: ['datasets/coco.yml', 'base/picodet.yml']\nepoch: 1\n")
    (tmp_path / "configs/base").mkdir()
    (tmp_path / "configs/base/picodet.yml").write_text(f"architecture: PicoDet\npretrain_weights: {base_weights}\n")
    text = config.read_text().replace("-o Global.pretrained_model:null", f"pretrain_weights:{pretrain}")
    config.write_text(text.replace("-o Global.device:gpu", "use_gpu:False"))
    return config


def test_a_pretrain_weights_null_that_falls_back_to_the_ymls_url_is_refused_at_the_yml_line(tmp_path: Path) -> None:
    config = det_config(tmp_path, "null")
    refusal = download_refusal(plan_of(config, tmp_path))
    assert refusal is not None and (refusal.path, refusal.line) == (str(tmp_path / "configs/base/picodet.yml"), 2)
    assert refusal.message.startswith(
        f"pretrain_weights: '{URL}' is a URL: norm_train-gpus_0-null::train would download it when it starts (the "
        "config passes no pretrain_weights, so the stage loads this one), which an offline run cannot"
    )
    way_off = "norm_train=tools/train.py -c configs/m.yml -o pretrain_weights=null"
    assert f"--set '{way_off}' trains without them" in refusal.message
    assert "--set pretrain_weights=<a local path> loads weights downloaded before" in refusal.message
    # each way out it names is taken
    assert download_refusal(plan_of(config, tmp_path, way_off)) is None
    assert download_refusal(plan_of(config, tmp_path, "pretrain_weights=./weights/local.pdparams")) is None


@pytest.mark.parametrize(
    ("pretrain", "base_weights"),
    [("null", "./weights/local.pdparams"), ("./weights/mine.pdparams", URL), ("null", "null")],
    ids=["yml-names-local-weights", "config-names-local-weights", "yml-names-none"],
)
def test_weights_an_offline_run_can_honour_are_not_refused(tmp_path: Path, pretrain: str, base_weights: str) -> None:
    assert download_refusal(plan_of(det_config(tmp_path, pretrain, base_weights), tmp_path)) is None


def test_the_config_naming_the_url_itself_is_refused_at_its_own_line_first(tmp_path: Path) -> None:
    config = det_config(tmp_path, URL)
    refusal = download_refusal(plan_of(config, tmp_path))
    assert refusal is not None and (refusal.path, refusal.line) == (str(config), 10)
