from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from PIL import Image

from tipc.dialects.paddleocr.prepare.styles import ClsStyle, DetStyle, TextStyle
from tipc.dialects.paddleocr.prepare.writer import (
    drawer,
    image_paths,
    labelled_image_dir,
    write_images,
    write_labelled_set,
)

REC = TextStyle("0123456789abcdefghijklmnopqrstuvwxyz", 32, 3, 8)
CLS = ClsStyle(REC, ("0", "180"))
DET = DetStyle(REC.charset, 3, 8)
STYLES = pytest.mark.parametrize("style", [REC, CLS, DET], ids=["rec", "cls", "det"])


def _digest(paths) -> str:
    return hashlib.sha256(b"".join(Path(p).read_bytes() for p in paths)).hexdigest()


def _rows(label_file: Path) -> list[tuple[str, str]]:
    return [tuple(line.split("\t")) for line in label_file.read_text(encoding="utf-8").splitlines()]


@STYLES
def test_same_seed_gives_same_bytes_other_seed_other_bytes(tmp_path, style):
    first = write_labelled_set(style, tmp_path / "a", tmp_path / "a/gt.txt", 6, seed=3)
    second = write_labelled_set(style, tmp_path / "b", tmp_path / "b/gt.txt", 6, seed=3)
    third = write_labelled_set(style, tmp_path / "c", tmp_path / "c/gt.txt", 6, seed=4)
    assert _digest(first) == _digest(second) != _digest(third)
    assert (tmp_path / "a/gt.txt").read_bytes() == (tmp_path / "b/gt.txt").read_bytes()


@STYLES
def test_growing_count_keeps_earlier_images(tmp_path, style):
    small = write_images(style, tmp_path / "a", 3, seed=1)
    large = write_images(style, tmp_path / "b", 5, seed=1)
    assert _digest(small) == _digest(large[:3])


@pytest.mark.parametrize(
    ("style", "name", "label_ok"),
    [
        (REC, "word_00001.png", lambda label: 3 <= len(label) <= 8),
        (CLS, "word_00001.png", lambda label: label in ("0", "180")),
        (DET, "img_00001.png", lambda label: all(len(r["points"]) == 4 for r in json.loads(label))),
    ],
    ids=["rec", "cls", "det"],
)
def test_label_file_is_simple_dataset_format(tmp_path, style, name, label_ok):
    data_dir = tmp_path / "train_data/set"
    paths = write_labelled_set(style, data_dir, data_dir / "train.txt", 5, seed=0)
    rows = _rows(data_dir / "train.txt")
    assert [rel for rel, _ in rows] == [p.relative_to(data_dir).as_posix() for p in paths]
    assert rows[0][0] == f"train/{name}"
    assert all(label_ok(label) for _, label in rows)
    for rel, _ in rows:
        with Image.open(data_dir / rel) as image:
            assert (image.format, image.mode) == ("PNG", "RGB")


def test_a_label_file_elsewhere_still_lists_paths_relative_to_data_dir(tmp_path):
    write_labelled_set(REC, tmp_path / "data", tmp_path / "labels/gt.txt", 2, seed=0)
    assert _rows(tmp_path / "labels/gt.txt")[0][0] == "gt/word_00001.png"
    assert (tmp_path / "data/gt/word_00001.png").is_file()


@STYLES
def test_images_are_named_in_order_and_nothing_else_is_written(tmp_path, style):
    paths = write_images(style, tmp_path / "inference/images", 3, seed=2)
    assert paths == image_paths(style, tmp_path / "inference/images", 3)
    assert sorted(p.name for p in (tmp_path / "inference/images").iterdir()) == [p.name for p in paths]


def test_each_kind_has_its_own_generator():
    assert len({drawer(style).generator for style in (REC, CLS, DET)}) == 3


def test_labelled_image_dir_is_named_after_the_label_file():
    assert labelled_image_dir(Path("d"), Path("d/rec_gt_train.txt")) == Path("d/rec_gt_train")
