from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest
from PIL import Image

from tipc.prepare.synth import render_line, usable_charset, write_image_dir, write_rec_dataset

CHARSET = "0123456789abcdefghijklmnopqrstuvwxyz"


def _digest(paths) -> str:
    return hashlib.sha256(b"".join(Path(p).read_bytes() for p in paths)).hexdigest()


def _labels(label_file: Path) -> list[tuple[str, str]]:
    return [tuple(line.split("\t")) for line in label_file.read_text(encoding="utf-8").splitlines()]


def test_same_seed_gives_same_bytes(tmp_path):
    first = write_rec_dataset(tmp_path / "a", tmp_path / "a/gt.txt", 20, CHARSET, seed=3)
    second = write_rec_dataset(tmp_path / "b", tmp_path / "b/gt.txt", 20, CHARSET, seed=3)
    assert _digest(first) == _digest(second)
    assert (tmp_path / "a/gt.txt").read_bytes() == (tmp_path / "b/gt.txt").read_bytes()


def test_other_seed_gives_other_images(tmp_path):
    first = write_rec_dataset(tmp_path / "a", tmp_path / "a/gt.txt", 10, CHARSET, seed=3)
    second = write_rec_dataset(tmp_path / "b", tmp_path / "b/gt.txt", 10, CHARSET, seed=4)
    assert _digest(first) != _digest(second)


def test_growing_count_keeps_earlier_images(tmp_path):
    small = write_rec_dataset(tmp_path / "a", tmp_path / "a/gt.txt", 5, CHARSET, seed=1)
    large = write_rec_dataset(tmp_path / "b", tmp_path / "b/gt.txt", 9, CHARSET, seed=1)
    assert _digest(small) == _digest(large[:5])


def test_label_file_is_simple_dataset_format(tmp_path):
    data_dir = tmp_path / "train_data/ic15_data"
    paths = write_rec_dataset(data_dir, data_dir / "rec_gt_train.txt", 12, "abc123", seed=0, min_len=2, max_len=4)
    rows = _labels(data_dir / "rec_gt_train.txt")
    assert [rel for rel, _ in rows] == [p.relative_to(data_dir).as_posix() for p in paths]
    assert rows[0][0] == "rec_gt_train/word_00001.png"
    assert all(2 <= len(text) <= 4 and set(text) <= set("abc123") for _, text in rows)
    assert all((data_dir / rel).is_file() for rel, _ in rows)


def test_rel_to_changes_the_label_paths_only(tmp_path):
    write_rec_dataset(tmp_path / "data/set", tmp_path / "labels.txt", 3, CHARSET, seed=0, rel_to=tmp_path / "data")
    assert _labels(tmp_path / "labels.txt")[0][0] == "set/labels/word_00001.png"


@pytest.mark.parametrize("height", [32, 48], ids=["h32", "h48"])
def test_images_are_rgb_pngs_of_the_height_with_width_growing_with_length(tmp_path, height):
    data_dir = tmp_path / "d"
    write_rec_dataset(data_dir, data_dir / "gt.txt", 30, CHARSET, seed=5, image_height=height, min_len=2, max_len=10)
    sizes = {}
    for rel, text in _labels(data_dir / "gt.txt"):
        with Image.open(data_dir / rel) as image:
            assert (image.format, image.mode, image.height) == ("PNG", "RGB", height)
            sizes.setdefault(len(text), set()).add(image.width)
    widths = [max(sizes[n]) for n in sorted(sizes)]
    assert widths == sorted(widths) and widths[0] < widths[-1]


def test_render_line_draws_dark_ink_on_light_ground():
    image = render_line("ab12", 32, random.Random(0))
    darkest, lightest = image.convert("L").getextrema()
    assert lightest >= 190 and darkest <= 90


def test_render_line_rejects_empty_text():
    with pytest.raises(ValueError, match="empty"):
        render_line("", 32, random.Random(0))


def test_write_image_dir_names_images_in_order(tmp_path):
    paths = write_image_dir(tmp_path / "inference/rec_inference", 3, CHARSET, seed=2)
    assert [p.name for p in paths] == ["word_00001.png", "word_00002.png", "word_00003.png"]
    assert sorted(p.name for p in (tmp_path / "inference/rec_inference").iterdir()) == [p.name for p in paths]


@pytest.mark.parametrize(
    ("charset", "expected"),
    [("a b\tc", "abc"), ("aabba", "ab"), ("   ", "")],
    ids=["whitespace-dropped", "repeats-dropped", "nothing-left"],
)
def test_usable_charset(charset, expected):
    assert usable_charset(charset) == expected


@pytest.mark.parametrize(
    ("charset", "min_len", "max_len", "message"),
    [(" ", 3, 8, "printable"), ("abc", 0, 8, "min_len"), ("abc", 5, 4, "min_len")],
    ids=["blank-charset", "zero-length", "inverted-range"],
)
def test_bad_arguments_are_refused(tmp_path, charset, min_len, max_len, message):
    with pytest.raises(ValueError, match=message):
        write_rec_dataset(tmp_path, tmp_path / "gt.txt", 2, charset, 0, min_len=min_len, max_len=max_len)
