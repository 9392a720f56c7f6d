"""``tipc prepare`` through the real ``tipc.cli.main`` dispatch (only the prepare command registered)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.support.config_text import TRAIN_BENCHMARK, ptq_config_text
from tests.support.fake_checkout import CONFIG_REL, DET_DIR, DET_YML, REC_YML, make_checkout
from tipc.dialects.paddleocr.prepare.manifest import MANIFEST_NAME


@pytest.fixture
def tipc(command):
    return command("prepare")


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "test_tipc" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_lite_mode_writes_the_paddleocr_layout(checkout, tipc):
    code, out, _ = tipc(
        "--config", str(checkout / CONFIG_REL), "--mode", "lite_train_lite_infer", "--repo", str(checkout)
    )
    assert code == 0
    data_dir = checkout / "train_data/ic15_data"
    assert (_count(data_dir / "rec_gt_train.txt"), _count(data_dir / "rec_gt_test.txt")) == (64, 32)
    assert len(list((checkout / "inference/rec_inference").glob("*.png"))) == 8
    assert (data_dir / MANIFEST_NAME).is_file() and (checkout / "inference/rec_inference" / MANIFEST_NAME).is_file()
    assert "created" in out and "train_data/ic15_data/rec_gt_train.txt" in out


def test_rerun_is_idempotent_and_deterministic_across_checkouts(tmp_path, tipc):
    trees = []
    for name in ("one", "two"):
        root = tmp_path / name
        config = make_checkout(root)
        assert tipc("--config", str(config), "--mode", "lite_train_lite_infer", "--repo", str(root))[0] == 0
        trees.append(_tree_digest(root))
    assert trees[0] == trees[1]
    code, out, _ = tipc(
        "--config",
        str(tmp_path / "one" / CONFIG_REL),
        "--mode",
        "lite_train_lite_infer",
        "--repo",
        str(tmp_path / "one"),
    )
    assert code == 0 and out.count("unchanged") == 3 and "created" not in out
    assert _tree_digest(tmp_path / "one") == trees[0]


@pytest.mark.parametrize(
    ("mode", "extra", "train", "evaluation", "infer"),
    [
        ("whole_train_whole_infer", ("--train-count", "100", "--eval-count", "10"), 100, 10, 32),
        ("lite_train_whole_infer", (), 64, 32, 32),
    ],
    ids=["whole-with-overrides", "lite-train-whole-infer"],
)
def test_sizes_per_mode(checkout, tipc, mode, extra, train, evaluation, infer):
    code, _, _ = tipc("--config", str(checkout / CONFIG_REL), "--mode", mode, "--repo", str(checkout), *extra)
    assert code == 0
    data_dir = checkout / "train_data/ic15_data"
    assert (_count(data_dir / "rec_gt_train.txt"), _count(data_dir / "rec_gt_test.txt")) == (train, evaluation)
    assert len(list((checkout / "inference/rec_inference").glob("*.png"))) == infer


def test_target_yaml_declares_sizes_and_the_repo(checkout, tipc, monkeypatch, tmp_path):
    config = checkout / CONFIG_REL
    (config.parent / "target.yaml").write_text(
        "repo: ../../..\nprepare:\n  lite_train_lite_infer: {train: 5, eval: 3, infer: 2}\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path.parent)  # not the checkout: the repo must come from target.yaml
    assert tipc("--config", str(config), "--mode", "lite_train_lite_infer")[0] == 0
    data_dir = checkout / "train_data/ic15_data"
    assert (_count(data_dir / "rec_gt_train.txt"), _count(data_dir / "rec_gt_test.txt")) == (5, 3)


def test_repo_defaults_to_the_current_directory(checkout, tipc, monkeypatch):
    monkeypatch.chdir(checkout)
    assert tipc("--config", CONFIG_REL, "--mode", "lite_train_lite_infer", "--infer-count", "1")[0] == 0
    assert (checkout / "inference/rec_inference/word_00001.png").is_file()


def test_whole_infer_makes_images_and_says_the_model_cannot_be_made(checkout, tipc):
    code, _out, err = tipc("--config", str(checkout / CONFIG_REL), "--mode", "whole_infer", "--repo", str(checkout))
    assert code == 1
    assert len(list((checkout / "inference/rec_inference").glob("*.png"))) == 32
    assert not (checkout / "train_data").exists()
    assert f"{checkout / CONFIG_REL}:37: whole_infer needs the inference model './inference/fake_rec_infer'" in err
    assert "cannot be made offline" in err and "train run" in err


def test_foreign_label_file_exits_2_and_is_kept(checkout, tipc):
    label = checkout / "train_data/ic15_data/rec_gt_train.txt"
    label.parent.mkdir(parents=True)
    label.write_text("train/word_1.png\tGenaxis Theatre\n", encoding="utf-8")
    code, _, err = tipc(
        "--config", str(checkout / CONFIG_REL), "--mode", "lite_train_lite_infer", "--repo", str(checkout)
    )
    assert code == 2
    assert err.startswith(f"tipc: error: {label}: exists and tipc did not make it")
    assert label.read_text(encoding="utf-8") == "train/word_1.png\tGenaxis Theatre\n"
    assert (
        tipc(
            "--config",
            str(checkout / CONFIG_REL),
            "--mode",
            "lite_train_lite_infer",
            "--repo",
            str(checkout),
            "--force",
        )[0]
        == 0
    )
    assert _count(label) == 64


def test_the_trainers_overrides_decide_the_paths(tmp_path, tipc):
    """PP-OCRv4_mobile_rec: the yml reads train_list.txt, the command the plan runs reads ic15_data."""
    yml = REC_YML.replace("./train_data/ic15_data/rec_gt_train.txt", "./train_data/train_list.txt")
    config = make_checkout(
        tmp_path,
        yml=yml,
        train_overrides="Train.dataset.label_file_list=[./train_data/ic15_data/rec_gt_train.txt]",
    )
    code, out, _ = tipc("--config", str(config), "--mode", "lite_train_lite_infer", "--repo", str(tmp_path))
    assert code == 0 and "train_data/ic15_data/rec_gt_train.txt" in out
    assert _count(tmp_path / "train_data/ic15_data/rec_gt_train.txt") == 64
    assert not (tmp_path / "train_data/train_list.txt").exists()


def test_detection_config_gets_icdar2015_style_data(tmp_path, tipc):
    images = f"{DET_DIR}/ch4_test_images/"
    config = make_checkout(tmp_path, yml=DET_YML, infer_images=images)
    argv = ("--config", str(config), "--mode", "lite_train_lite_infer", "--repo", str(tmp_path), "--train-count", "3")
    code, out, _ = tipc(*argv)
    assert code == 0 and out.count("created") == 3
    data_dir = tmp_path / DET_DIR
    for label_file, count in (("train_icdar2015_label.txt", 3), ("test_icdar2015_label.txt", 32)):
        rows = [line.split("\t") for line in (data_dir / label_file).read_text(encoding="utf-8").splitlines()]
        assert len(rows) == count
        for image, regions in rows:
            assert (data_dir / image).is_file() and image.endswith(".png")
            assert all(set(region) == {"transcription", "points"} for region in json.loads(regions))
    assert len(list((tmp_path / images).glob("img_*.png"))) == 8
    assert tipc(*argv)[1].count("unchanged") == 3


def test_other_families_exit_2_with_the_paths_and_the_online_route(tmp_path, tipc):
    config = make_checkout(tmp_path, model_type="kie")
    code, out, err = tipc("--config", str(config), "--mode", "lite_train_lite_infer", "--repo", str(tmp_path))
    assert code == 2 and out == ""
    assert "fake_rec.yml:8: prepare: model_type 'kie' (dataset SimpleDataSet)" in err
    assert "./train_data/ic15_data/rec_gt_train.txt" in err
    assert f"bash test_tipc/prepare.sh {CONFIG_REL} lite_train_lite_infer" in err
    assert not (tmp_path / "train_data").exists()


def test_ptq_config_exits_2_with_a_clear_message(tmp_path, tipc):
    config = tmp_path / "train_ptq_infer_python.txt"
    config.write_text(ptq_config_text())
    code, out, err = tipc("--config", str(config), "--mode", "whole_infer", "--repo", str(tmp_path))
    assert (code, out) == (2, "")
    assert err == (
        f"tipc: error: {config}:1: prepare: KL quantization configs are not supported offline yet (only train "
        "configs): the quantizer needs the real inference model and its training data\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [config.name]


def test_unknown_config_exits_2(tmp_path, tipc, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = tipc("--config", "nope/train_infer_python.txt", "--mode", "lite_train_lite_infer")
    assert code == 2 and "config not found" in err


def test_unknown_mode_is_a_usage_error(checkout, tipc):
    with pytest.raises(SystemExit) as info:
        tipc("--config", str(checkout / CONFIG_REL), "--mode", "lite")
    assert info.value.code == 2


def test_benchmark_train_is_sized_for_the_analysis_step(checkout, tipc):
    config = checkout / CONFIG_REL
    section = "\n".join(
        ("===========================train_benchmark_params===========================", *TRAIN_BENCHMARK[1])
    )
    config.write_text(config.read_text() + section + "\n")
    code, out, err = tipc("--config", str(config), "--mode", "benchmark_train", "--repo", str(checkout))
    assert code == 0, out + err
    # 512 lines: 16 steps of 32 per process, more than the 12 the analysis needs
    assert _count(checkout / "train_data/ic15_data/rec_gt_train.txt") == 512
