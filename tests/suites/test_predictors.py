"""The other suites' predictor outputs read as predictions: lines written here in each predictor's format."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from PIL import Image

from tipc.dialects.paddleclas.predictions import NO_CLASS_ID, classification_lines
from tipc.dialects.paddledetection.predictions import detection_lines
from tipc.dialects.paddleseg.predictions import mask_summary, segmentation_masks
from tipc.files.image import NotAnImage
from tipc.golden.evidence import predictions_of
from tipc.metrics.predictions import Detected, MaskSummary, Prediction, Ranked
from tipc.results.records import StageRecord, Status


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (
            ["owl.jpeg:\tclass id(s): [7, 2], score(s): [0.81, 0.12], label_name(s): ['owl', 'hawk']\n"],
            (Prediction("owl.jpeg", top_k=(Ranked(7, 0.81, "owl"), Ranked(2, 0.12, "hawk"))),),
        ),
        (
            ["a b.png:\tclass id(s): [0], score(s): [1.00], label_name(s): []\n"],
            (Prediction("a b.png", top_k=(Ranked(0, 1.0, ""),)),),
        ),
        (
            ["x.jpg:\tscore(s): [0.40, 0.35]\n"],
            (Prediction("x.jpg", top_k=(Ranked(NO_CLASS_ID, 0.4), Ranked(NO_CLASS_ID, 0.35))),),
        ),
        (
            ["[2026/12/01 10:00:00] ppcls INFO: w.jpg:\tclass id(s): [4], score(s): [0.50], label_name(s): ['a, b']"],
            (Prediction("w.jpg", top_k=(Ranked(4, 0.5, "a, b"),)),),
        ),
        (
            [
                "Global.batch_size : 2\n",
                "y.jpg:\tclass id(s): [1, 2], score(s): [0.50], label_name(s): ['a']\n",  # ids and scores disagree
                "y.jpg:\tclass id(s): [os.system], score(s): [0.50]\n",  # not a literal
                "z.jpg:\tclass id(s): [3], score(s): [0.90], label_name(s): ['cat']\n",
            ],
            (Prediction("z.jpg", top_k=(Ranked(3, 0.9, "cat"),)),),
        ),
    ],
    ids=["with-labels", "no-class-list", "scores-only", "logger-prefix", "malformed-lines-skipped"],
)
def test_classification_lines(lines, expected):
    assert classification_lines(lines) == expected


BOX_A = "class_id:0, confidence:0.9312, left_top:[12.50,30.00],right_bottom:[80.25,99.00]\n"
BOX_B = "class_id:3, confidence:0.5100, left_top:[-1.00,0.00],right_bottom:[5.00,6.50]\n"


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (
            ["Test iter 0\n", BOX_A, BOX_B, "save result to: output/street.jpg\n"],
            (
                Prediction(
                    "output/street.jpg",
                    objects=(Detected(0, 0.9312, (12.5, 30.0, 80.25, 99.0)), Detected(3, 0.51, (-1.0, 0.0, 5.0, 6.5))),
                ),
            ),
        ),
        (
            ["save result to: output/empty.jpg\n", BOX_A, "save result to: output/b.jpg\n"],
            (
                Prediction("output/empty.jpg", objects=()),
                Prediction("output/b.jpg", objects=(Detected(0, 0.9312, (12.5, 30.0, 80.25, 99.0)),)),
            ),
        ),
        ([BOX_A, BOX_B], ()),  # boxes whose image was never saved: no image to give them to
        (
            ["class_id:x, confidence:0.1, left_top:[1,2],right_bottom:[3,4]\n", "save result to: o/c.jpg\n"],
            (Prediction("o/c.jpg", objects=()),),
        ),
    ],
    ids=["two-boxes", "an-image-without-boxes-then-one", "never-saved", "malformed-box-skipped"],
)
def test_detection_lines(lines, expected):
    assert detection_lines(lines) == expected


PALETTE = [channel for i in range(256) for channel in (i, (i * 7) % 256, (i * 13) % 256)]  # a colour per class


def image_of(rows: list[list[int]], mode: str = "P") -> Image.Image:
    """A mask as PaddleSeg saves one: a palette image whose pixel values are class ids."""
    image = Image.new(mode, (len(rows[0]), len(rows)))
    image.putdata([v if mode != "RGB" else (v, v, v) for row in rows for v in row])
    if mode == "P":
        image.putpalette(PALETTE)
    return image


def mask(path: Path, rows: list[list[int]]) -> Path:
    image_of(rows).save(path)
    return path


@pytest.mark.parametrize(
    ("rows", "mode", "expected"),
    [
        ([[0, 0, 1, 1], [0, 0, 0, 2]], "P", MaskSummary(2, 4, ((0, 5 / 8), (1, 2 / 8), (2, 1 / 8)))),
        ([[5, 5], [5, 5], [5, 5]], "L", MaskSummary(3, 2, ((5, 1.0),))),
        ([[0, 1]], "RGB", None),  # a colour picture is not a class mask
    ],
    ids=["palette", "grey", "rgb-is-no-mask"],
)
def test_mask_summary(tmp_path, rows, mode, expected):
    image_of(rows, mode).save(tmp_path / "m.png")
    assert mask_summary(tmp_path / "m.png") == expected


def test_not_an_image_is_no_mask_and_says_why(tmp_path):
    (tmp_path / "m.png").write_text("not a png")
    with pytest.raises(NotAnImage, match="not a PNG, JPEG"):
        mask_summary(tmp_path / "m.png")


def record(tmp_path: Path, argv: tuple[str, ...], start: float, config: str = "", log: str = "") -> StageRecord:
    return StageRecord("c::infer", "infer", "c", Status.PASSED, argv=argv, cwd=str(tmp_path), start=start,
                       config=config, log=log)  # fmt: skip


@pytest.mark.parametrize(
    "argv",
    [("python", "deploy/python/infer.py", "--save_dir", "out/cell"), ("python", "infer.py", "--save_dir=out/cell")],
    ids=["flag-then-value", "flag-equals-value"],
)
def test_segmentation_masks_are_this_stages_own(tmp_path, argv):
    folder = tmp_path / "out" / "cell"
    folder.mkdir(parents=True)
    stale = mask(folder / "last_night.png", [[1]])
    old = time.time() - 3600
    os.utime(stale, (old, old))
    start = time.time() - 5
    mask(folder / "city.png", [[0, 1], [1, 1]])
    (folder / "notes.txt").write_text("not a mask")
    found = segmentation_masks(record(tmp_path, argv, start, log=str(tmp_path / "out" / "infer.log")))
    assert found == (Prediction(str(folder / "city.png"), mask=MaskSummary(2, 2, ((0, 0.25), (1, 0.75)))),)
    assert found[0].key == "city.png"


def test_segmentation_without_a_save_dir_has_no_masks(tmp_path):
    assert segmentation_masks(record(tmp_path, ("python", "infer.py"), 0.0, log=str(tmp_path / "x.log"))) == ()


def test_a_mask_bomb_is_a_prediction_that_says_why_it_was_not_read(tmp_path):
    """A 20000 × 20000 mask PNG of one class is a few hundred KB: decoded it is 400 MB."""
    (tmp_path / "out").mkdir()
    Image.new("L", (20000, 20000)).save(tmp_path / "out" / "bomb.png", optimize=True)
    started = time.monotonic()
    found = segmentation_masks(record(tmp_path, ("infer.py", "--save_dir=out"), 0.0, log=str(tmp_path / "x.log")))
    assert found == (Prediction(str(tmp_path / "out" / "bomb.png"),
                                text="mask not read: it has more pixels than the 25 Mpixel limit"),)  # fmt: skip
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("save_dir", ["../elsewhere", "/tmp", "out/../../elsewhere"])
def test_masks_are_read_only_in_the_folder_of_the_stages_log(tmp_path, save_dir):
    """A record's argv is input: its ``--save_dir`` must not make a report read PNGs anywhere."""
    (tmp_path / "elsewhere").mkdir()
    mask(tmp_path / "elsewhere" / "secret.png", [[1]])
    repo = tmp_path / "repo"
    (repo / "out").mkdir(parents=True)
    argv = ("infer.py", f"--save_dir={save_dir}")
    assert segmentation_masks(record(repo, argv, 0.0, log=str(repo / "out" / "infer.log"))) == ()


def test_an_infer_stage_is_read_in_its_config_dialect(tmp_path):
    """The golden check and the report read a PaddleClas config's infer log as predict_cls.py's lines."""
    (tmp_path / "ppcls").mkdir()
    config = tmp_path / "test_tipc" / "configs" / "M" / "M_train_infer_python.txt"
    config.parent.mkdir(parents=True)
    config.write_text("model_name:M\n")
    log = tmp_path / "infer.log"
    log.write_text("owl.jpeg:\tclass id(s): [7], score(s): [0.81], label_name(s): ['owl']\n")
    found = predictions_of(record(tmp_path, ("python",), 0.0, str(config), str(log)))
    assert found == (Prediction("owl.jpeg", top_k=(Ranked(7, 0.81, "owl"),)),)
