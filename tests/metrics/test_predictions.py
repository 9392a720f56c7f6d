"""Predictions from predictor logs: PaddleOCR's recognition and detection lines, keyed by base name."""

from __future__ import annotations

import math

import pytest

from tipc.metrics.predictions import Prediction, image_key, predictions_of_lines, read_predictions

PREFIX = "[2026/12/01 01:52:42] ppocr INFO: "
BOX = [[[209, 406], [280, 406], [280, 419], [209, 419]]]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            f"{PREFIX}Predicts of inference/rec_inference/word_00001.png:('', 0.0)",
            Prediction("inference/rec_inference/word_00001.png", text="", score=0.0),
        ),
        (
            f"{PREFIX}Predicts of ./doc/imgs_words/ch/word_1.jpg:('韩国小馆', 0.997)",
            Prediction("./doc/imgs_words/ch/word_1.jpg", text="韩国小馆", score=0.997),
        ),
        (
            'Predicts of a/b.png:("it\'s", np.float32(0.25))',
            Prediction("a/b.png", text="it's", score=0.25),
        ),
        (
            r"Predicts of a/c.png:('a\'b', 1)",
            Prediction("a/c.png", text="a'b", score=1.0),
        ),
        (
            r"Predicts of a/d.png:('tab\there \\ \u00e9', 0.5)",
            Prediction("a/d.png", text="tab\there \\ \u00e9", score=0.5),
        ),
        (
            f"{PREFIX}00008790.jpg\t[[[209, 406], [280, 406], [280, 419], [209, 419]]]",
            Prediction("00008790.jpg", boxes=(((209.0, 406.0), (280.0, 406.0), (280.0, 419.0), (209.0, 419.0)),)),
        ),
        ("img_10.jpg\t[]", Prediction("img_10.jpg", boxes=())),
    ],
    ids=["rec-empty", "rec-unicode", "rec-numpy-score", "rec-escaped-quote", "rec-escapes", "det-json", "det-none"],
)
def test_a_prediction_line_is_read(line, expected):
    assert predictions_of_lines([line]) == (expected,)


@pytest.mark.parametrize(
    "line",
    [
        "Predicts of a.png:",
        "Predicts of a.png:('unclosed, 0.5)",
        "Predicts of a.png:('x', high)",
        "img.jpg\t[[1, 2]]",  # points, not boxes
        "img.jpg\tnot json [",
        "notes.txt\t[]",
        "epoch: [1/2], global_step: 1, loss: 3.0",
    ],
    ids=["no-tuple", "unclosed-quote", "word-score", "flat-points", "bad-json", "not-an-image", "train-line"],
)
def test_other_lines_are_not_predictions(line):
    assert predictions_of_lines([line]) == ()


def test_a_nan_score_stays_nan_and_the_text_is_kept():
    (p,) = predictions_of_lines(["Predicts of a.png:('ab', nan)"])
    assert p.text == "ab" and math.isnan(p.score)


@pytest.mark.parametrize(
    ("prediction", "empty"),
    [
        (Prediction("a", text="", score=0.0), True),
        (Prediction("a", text="x", score=0.1), False),
        (Prediction("a", boxes=()), True),
        (Prediction("a", boxes=(((0.0, 0.0),),)), False),
    ],
    ids=["no-text", "text", "no-box", "a-box"],
)
def test_empty_means_nothing_recognised_or_detected(prediction, empty):
    assert prediction.empty is empty


@pytest.mark.parametrize(
    ("path", "key"),
    [("inference/rec/word_1.png", "word_1.png"), ("C:\\data\\img.jpg", "img.jpg"), ("img.jpg", "img.jpg")],
    ids=["posix", "windows", "bare"],
)
def test_images_are_keyed_by_base_name(path, key):
    assert image_key(path) == key


def test_the_log_is_streamed_from_an_offset_and_bounded(tmp_path):
    log = tmp_path / "infer.log"
    old = "Predicts of old.png:('old', 0.1)\n"
    log.write_text(old + "".join(f"Predicts of w{i}.png:('t{i}', 0.5)\n" for i in range(50)))
    found = read_predictions(log, since=len(old), limit=10)
    assert [p.key for p in found] == [f"w{i}.png" for i in range(10)]
