from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tipc.dialects.paddleocr.prepare.apply import INFER_KEY, PrepareAction, apply_target
from tipc.dialects.paddleocr.prepare.manifest import MANIFEST_NAME
from tipc.dialects.paddleocr.prepare.styles import DetStyle, TextStyle
from tipc.dialects.paddleocr.prepare.targets import ImageDir, LabelledSet
from tipc.errors import ConfigError

STYLE = TextStyle(charset="abc123", image_height=32, min_len=2, max_len=5)


def _rec(root: Path, count: int = 6, seed: int = 1) -> LabelledSet:
    data_dir = root / "train_data/ic15_data"
    return LabelledSet("train", data_dir, data_dir / "rec_gt_train.txt", count, seed, STYLE)


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_first_run_creates_and_records(tmp_path):
    target = _rec(tmp_path)
    assert apply_target(target).action is PrepareAction.CREATED
    manifest = json.loads((target.data_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
    entry = manifest["entries"]["rec_gt_train.txt"]
    assert entry["params"] == {
        "generator": "tipc.dialects.paddleocr.prepare.synth/1",
        "count": 6,
        "seed": 1,
        "charset": "abc123",
        "image_height": 32,
        "min_len": 2,
        "max_len": 5,
    }
    assert entry["files"][-1] == "rec_gt_train.txt" and len(entry["files"]) == 7


def test_another_kind_of_data_remakes_the_set_and_drops_the_old_images(tmp_path):
    target = _rec(tmp_path, count=3)
    apply_target(target)
    detection = replace(target, style=DetStyle("abc123", 2, 5))
    assert apply_target(detection).action is PrepareAction.REGENERATED
    assert sorted(p.name for p in (target.data_dir / "rec_gt_train").iterdir()) == [
        "img_00001.png",
        "img_00002.png",
        "img_00003.png",
    ]
    manifest = json.loads((target.data_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert (
        manifest["entries"]["rec_gt_train.txt"]["params"]["generator"] == "tipc.dialects.paddleocr.prepare.detsynth/1"
    )
    assert apply_target(detection).action is PrepareAction.UNCHANGED


def test_second_run_with_same_parameters_does_nothing(tmp_path):
    target = _rec(tmp_path)
    apply_target(target)
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file()}
    assert apply_target(target).action is PrepareAction.UNCHANGED
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file()} == before


def test_same_parameters_give_the_same_bytes_in_another_tree(tmp_path):
    apply_target(_rec(tmp_path / "one"))
    apply_target(_rec(tmp_path / "two"))
    assert _snapshot(tmp_path / "one") == _snapshot(tmp_path / "two")


def test_a_deleted_file_is_made_again(tmp_path):
    target = _rec(tmp_path)
    apply_target(target)
    (target.data_dir / "rec_gt_train/word_00002.png").unlink()
    assert apply_target(target).action is PrepareAction.REGENERATED
    assert (target.data_dir / "rec_gt_train/word_00002.png").is_file()


def test_a_clobbered_label_file_is_made_again(tmp_path):
    """Two prepares racing left a label file listing images that no longer exist."""
    target = _rec(tmp_path)
    apply_target(target)
    good = target.label_file.read_bytes()
    target.label_file.write_text("rec_gt_train/word_00065.png\tzz\n", encoding="utf-8")
    assert apply_target(target).action is PrepareAction.REGENERATED
    assert target.label_file.read_bytes() == good
    assert apply_target(target).action is PrepareAction.UNCHANGED


def test_new_parameters_remove_only_tipc_files_no_longer_needed(tmp_path):
    target = _rec(tmp_path, count=6)
    apply_target(target)
    user_file = target.data_dir / "rec_gt_train/notes.txt"
    user_file.write_text("mine", encoding="utf-8")
    assert apply_target(replace(target, count=3)).action is PrepareAction.REGENERATED
    names = sorted(p.name for p in (target.data_dir / "rec_gt_train").iterdir())
    assert names == ["notes.txt", "word_00001.png", "word_00002.png", "word_00003.png"]
    assert user_file.read_text(encoding="utf-8") == "mine"
    assert len((target.data_dir / "rec_gt_train.txt").read_text(encoding="utf-8").splitlines()) == 3


def test_an_emptied_image_dir_is_removed_but_the_data_dir_stays(tmp_path):
    target = _rec(tmp_path, count=2)
    apply_target(target)
    other_label = target.data_dir / "other.txt"
    apply_target(replace(target, label_file=other_label, count=1))
    apply_target(replace(target, count=0))
    assert not (target.data_dir / "rec_gt_train").exists()
    assert (target.data_dir / "other/word_00001.png").is_file()


def test_a_foreign_label_file_is_refused_and_kept(tmp_path):
    target = _rec(tmp_path)
    target.label_file.parent.mkdir(parents=True)
    target.label_file.write_text("train/word_1.png\tGenaxis\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        apply_target(target)
    assert info.value.path == str(target.label_file)
    assert "tipc did not make it" in info.value.message and "--force" in info.value.message
    assert target.label_file.read_text(encoding="utf-8") == "train/word_1.png\tGenaxis\n"
    assert sorted(p.name for p in target.data_dir.iterdir()) == ["rec_gt_train.txt"]


def test_force_overwrites_the_foreign_label_file_and_deletes_nothing_else(tmp_path):
    target = _rec(tmp_path)
    user_image = target.data_dir / "train/word_1.png"
    user_image.parent.mkdir(parents=True)
    user_image.write_bytes(b"user image")
    target.label_file.write_text("train/word_1.png\tGenaxis\n", encoding="utf-8")
    assert apply_target(target, force=True).action is PrepareAction.CREATED
    assert user_image.read_bytes() == b"user image"
    assert target.label_file.read_text(encoding="utf-8").startswith("rec_gt_train/word_00001.png\t")


def test_a_tampered_manifest_cannot_delete_outside_its_directory(tmp_path):
    target = _rec(tmp_path)
    apply_target(target)
    outside = tmp_path / "precious.txt"
    outside.write_text("keep", encoding="utf-8")
    manifest_path = target.data_dir / MANIFEST_NAME
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["entries"]["rec_gt_train.txt"]["files"].append("../../precious.txt")
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    apply_target(replace(target, seed=2))
    assert outside.read_text(encoding="utf-8") == "keep"


def test_a_foreign_manifest_is_a_clear_error(tmp_path):
    target = _rec(tmp_path)
    target.data_dir.mkdir(parents=True)
    (target.data_dir / MANIFEST_NAME).write_text('{"tool": "other"}', encoding="utf-8")
    with pytest.raises(ConfigError, match="not a tipc prepare manifest"):
        apply_target(target)


def test_image_dir_with_foreign_files_is_refused_unless_forced(tmp_path):
    target = ImageDir(tmp_path / "inference/rec_inference", 3, 5, STYLE)
    target.dir.mkdir(parents=True)
    (target.dir / "real_photo.jpg").write_bytes(b"jpeg")
    with pytest.raises(ConfigError, match="1 file\\(s\\) tipc did not make"):
        apply_target(target)
    assert apply_target(target, force=True).action is PrepareAction.CREATED
    assert sorted(p.name for p in target.dir.iterdir()) == [
        MANIFEST_NAME,
        "real_photo.jpg",
        "word_00001.png",
        "word_00002.png",
        "word_00003.png",
    ]
    manifest = json.loads((target.dir / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert manifest["entries"][INFER_KEY]["files"] == ["word_00001.png", "word_00002.png", "word_00003.png"]
