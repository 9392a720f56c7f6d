"""The report's predictions section: what each infer case predicted, seen at a glance (HTML parser)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PIL import Image

from tests.support.htmlq import parse
from tests.support.recorded_runs import CPU_CHAIN, HOSTILE, ResultsWriter, case
from tipc.files.image import MAX_BYTES, looks_like_image
from tipc.report import write_report
from tipc.report.predictions import SHOWN
from tipc.results.records import Status

PREFIX = "[2026/12/01 01:52:42] ppocr INFO: "


def image(root: Path, name: str, size: tuple[int, int]) -> None:
    path = root / "inference" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, "white").save(path)


def rec_log(predictions) -> str:
    return "".join(f"{PREFIX}Predicts of inference/{name}:({text!r}, {score})\n" for name, text, score in predictions)


def render(writer: ResultsWriter, tmp_path: Path):
    html = write_report([writer.write()], tmp_path / "reports").read_text(encoding="utf-8")
    return parse(html)


def infer(writer, bs, log_text, status=Status.PASSED, **kw):
    c = case(bs)
    name = f"infer[cpu-mkldnn_False-threads_1-fp32-bs{bs}]"
    return writer.add(CPU_CHAIN, name, status, log_text, infer=c, **kw)


def test_every_prediction_empty_is_said_in_words(tmp_path):
    writer = ResultsWriter(tmp_path / "out")
    for i in range(8):
        image(writer.root, f"w{i}.png", (100, 32))
    infer(writer, 1, rec_log((f"w{i}.png", "", 0.0) for i in range(8)))
    infer(writer, 6, rec_log((f"w{i}.png", "", 0.0) for i in range(8)))
    doc = render(writer, tmp_path)
    assert len(doc.find_all("div", cls="case")) == 2
    box = doc.find("div", cls="case")
    assert (box.attrs["data-total"], box.attrs["data-empty"]) == ("8", "8")
    assert "Every prediction of this case is empty (8 of 8)" in box.find("p", cls="all-empty").text
    figures = box.find_all("figure")
    assert len(figures) == SHOWN and all("(empty)" in f.text for f in figures)
    # Every case shows the same thumbnails: each is defined once in the page and used where shown.
    used = [f.find("use").attrs["href"] for f in figures]
    defs = {i.attrs["id"]: i for i in doc.find("svg", cls="thumbs").find_all("image")}
    assert used == [f"#thumb-{i}" for i in range(SHOWN)] and len(defs) == SHOWN
    assert defs["thumb-0"].attrs["href"].startswith("data:image/jpeg;base64,")


def test_recognised_text_and_score_are_shown_with_the_image(tmp_path):
    writer = ResultsWriter(tmp_path / "out")
    image(writer.root, "w1.png", (100, 32))
    infer(writer, 1, rec_log([("w1.png", "kb9hly", 0.9312), ("w2.png", "", 0.0), ("w3.png", HOSTILE, 0.5)]))
    doc = render(writer, tmp_path)
    box = doc.find("div", cls="case")
    assert box.find_all("p", cls="all-empty") == []
    first, second, third = box.find_all("figure")
    assert first.find("span", cls="pred").attrs["data-text"] == "kb9hly" and "0.9312" in first.text
    assert first.find("svg").attrs["width"] == "100"
    assert "empty" in second.classes and second.find_all("svg") == []  # no image file: the prediction still shows
    assert third.find("span", cls="pred").text == f"“{HOSTILE}”" and third.find_all("script") == []


def test_a_file_that_is_not_an_image_shows_its_prediction_without_a_thumbnail(tmp_path):
    writer = ResultsWriter(tmp_path / "out")
    (writer.root / "inference").mkdir(parents=True)
    (writer.root / "inference" / "w1.png").write_text("not a picture\n")
    infer(writer, 1, rec_log([("w1.png", "kb9hly", 0.9312)]))
    (figure,) = render(writer, tmp_path).find("div", cls="case").find_all("figure")
    assert figure.find("span", cls="pred").attrs["data-text"] == "kb9hly" and figure.find_all("svg") == []


def _bomb(path: Path) -> None:
    Image.new("1", (6000, 5000)).save(path)  # 30 Mpixel in 5 KB: below Pillow's own default limit


def _huge_bomb(path: Path) -> None:
    Image.new("1", (12000, 12000)).save(path)  # over twice the limit: Pillow raises rather than warns


def _too_large(path: Path) -> None:
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(MAX_BYTES))


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _text(path: Path) -> None:
    path.write_text("not a picture\n")


def _broken_png(path: Path) -> None:
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)


def _outside(path: Path) -> None:
    elsewhere = path.parents[3] / "elsewhere.png"
    Image.new("RGB", (40, 20), "red").save(elsewhere)
    path.symlink_to(elsewhere)


NOT_SHOWN = {
    "bomb": (_bomb, "image not shown: it has more pixels than the 25 Mpixel limit"),
    "huge-bomb": (_huge_bomb, "image not shown: it has more pixels than the 25 Mpixel limit"),
    "too-large": (_too_large, f"image not shown: it is {MAX_BYTES + 8} bytes, over the limit of {MAX_BYTES} bytes"),
    "fifo": (_fifo, "image not shown: it is a FIFO (named pipe)"),
    "folder": (os.mkdir, "image not shown: it is a directory"),
    "not-an-image": (_text, "image not shown: not a PNG, JPEG, GIF, BMP, TIFF or WebP file"),
    "undecodable": (_broken_png, "image not shown: it cannot be decoded as an image"),
    "outside-the-run": (_outside, "image not shown: it lies outside the results folder and the repo"),
    "missing": (lambda path: None, "image not shown: not found where the predictor read it"),
}


@pytest.mark.parametrize(("make", "note"), NOT_SHOWN.values(), ids=NOT_SHOWN.keys())
def test_an_image_not_shown_says_why_where_it_would_be(tmp_path, make, note):
    writer = ResultsWriter(tmp_path / "repo" / "out")
    image(writer.root, "ok.png", (100, 32))
    make(writer.root / "inference" / "bad.png")
    infer(writer, 1, rec_log([("bad.png", "kb9hly", 0.9312), ("ok.png", "ab", 0.5)]))
    bad, ok = render(writer, tmp_path).find("div", cls="case").find_all("figure")
    assert bad.find("p", cls="not-shown").text == note and bad.find_all("svg") == []
    assert bad.find("span", cls="pred").attrs["data-text"] == "kb9hly"  # the prediction still shows
    assert ok.find_all("p", cls="not-shown") == [] and ok.find("use").attrs["href"] == "#thumb-0"


def test_decoding_leaves_pillows_own_limit_as_it_was(tmp_path):
    """The report may run in a pytest process shared with tests of the user's own that use Pillow."""
    writer = ResultsWriter(tmp_path / "out")
    image(writer.root, "ok.png", (10, 10))
    _bomb(writer.root / "inference" / "bomb.png")
    infer(writer, 1, rec_log([("bomb.png", "a", 0.5), ("ok.png", "b", 0.5)]))
    before = Image.MAX_IMAGE_PIXELS
    render(writer, tmp_path)
    assert before == Image.MAX_IMAGE_PIXELS


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\r", True),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01", True),
        (b"GIF89a\x01\x00\x01\x00\x00\x00", True),
        (b"BM6\x00\x00\x00\x00\x00\x00\x006\x00", True),
        (b"II*\x00\x08\x00\x00\x00\x00\x00\x00\x00", True),
        (b"RIFF\x24\x00\x00\x00WEBP", True),
        (b"RIFF\x24\x00\x00\x00WAVE", False),
        (b"fake image 0", False),
        (b"", False),
    ],
)
def test_only_files_that_start_like_an_image_are_opened(head, expected):
    assert looks_like_image(head) is expected


def test_detection_boxes_are_drawn_over_a_thumbnail(tmp_path):
    writer = ResultsWriter(tmp_path / "out")
    image(writer.root, "scene.jpg", (480, 320))  # shrunk to 240 × 160: boxes at half scale
    log = (
        f"{PREFIX}scene.jpg\t[[[100, 50], [200, 50], [200, 80], [100, 80]], [[10, 10], [20, 10], [20, 20], [10, 20]]]\n"
    )
    infer(writer, 1, log, argv=("python3", "tools/infer/predict_det.py", "--image_dir=./inference"))
    doc = render(writer, tmp_path)
    svg = doc.find("figure").find("svg")
    assert svg.attrs["viewbox"] == "0 0 240 160" and svg.find("use").attrs["href"] == "#thumb-0"
    assert doc.find("image", id="thumb-0").attrs["width"] == "240"
    points = [p.attrs["points"] for p in svg.find_all("polygon")]
    assert points == ["50.0,25.0 100.0,25.0 100.0,40.0 50.0,40.0", "5.0,5.0 10.0,5.0 10.0,10.0 5.0,10.0"]
    assert "2 box(es)" in doc.find("figure").text


def test_golden_verdicts_are_listed_per_chain(tmp_path):
    writer = ResultsWriter(tmp_path / "out")
    infer(writer, 1, rec_log([("w1.png", "a", 0.5)]))
    reason = "1 golden finding(s): infer[…] w1.png: expected text 'b', found text 'a'"
    writer.add(CPU_CHAIN, "golden", Status.FAILED, "FINDING …\n", reason=reason, metrics={"findings": 1})
    writer.add("other-chain", "golden", Status.NO_GOLDEN, None, reason="no golden for lite_train_lite_infer fp32")
    doc = render(writer, tmp_path)
    rows = doc.find("table", cls="goldens").find_all("tr", **{"data-golden": CPU_CHAIN})
    assert len(rows) == 1 and "failed" in rows[0].text and reason in rows[0].text
    other = doc.find("tr", **{"data-golden": "other-chain"})
    assert "no_golden" in other.text and "no golden for lite_train_lite_infer fp32" in other.text
    cell = doc.find("td", **{"data-column": "golden", "data-status": "no_golden"})
    assert "no golden" in cell.text


def test_a_run_without_golden_checks_says_so(tmp_path):
    writer = ResultsWriter(tmp_path / "out")
    infer(writer, 1, rec_log([("w1.png", "a", 0.5)]))
    doc = render(writer, tmp_path)
    assert "No golden checks in this run" in doc.find("p", id="no-golden-checks").text


def test_a_run_without_predictions_or_goldens_has_no_section(tmp_path):
    writer = ResultsWriter(tmp_path / "out")
    writer.add(CPU_CHAIN, "train", Status.PASSED)
    assert render(writer, tmp_path).find_all("section", id="predictions") == []


SUITE_CONFIG = "test_tipc/configs/m/m_train_infer_python.txt"


def test_the_other_suites_predictions_are_shown_in_their_kind(tmp_path):
    """A PaddleDetection checkout's infer log (boxes drawn), a PaddleClas one's top-k, a PaddleSeg one's mask."""
    det = ResultsWriter(tmp_path / "det", config=str(tmp_path / "det" / SUITE_CONFIG))
    (det.root / "ppdet").mkdir()
    image(det.root, "scene.jpg", (480, 320))
    box = "class_id:2, confidence:0.9000, left_top:[100.00,50.00],right_bottom:[200.00,80.00]\n"
    infer(det, 1, f"{box}save result to: inference/scene.jpg\n")
    figure = render(det, tmp_path / "d").find("figure")
    assert [p.attrs["points"] for p in figure.find_all("polygon")] == ["50.0,25.0 100.0,25.0 100.0,40.0 50.0,40.0"]
    cls = ResultsWriter(tmp_path / "cls", config=str(tmp_path / "cls" / SUITE_CONFIG))
    (cls.root / "ppcls").mkdir()
    infer(cls, 1, "owl.jpeg:\tclass id(s): [7, 2], score(s): [0.81, 0.12], label_name(s): ['owl', 'hawk']\n")
    shown = render(cls, tmp_path / "c").find("figure").find("span", cls="pred").attrs["data-text"]
    assert shown == "owl 0.81, hawk 0.12"
    seg = ResultsWriter(tmp_path / "seg", config=str(tmp_path / "seg" / SUITE_CONFIG))
    (seg.root / "paddleseg").mkdir()
    logs = seg.root / CPU_CHAIN  # where the writer puts the chain's logs: PaddleSeg's --save_dir lies beside them
    (logs / "out").mkdir(parents=True)
    Image.new("L", (4, 2), 1).save(logs / "out" / "city.png")
    infer(seg, 1, "done\n", argv=("python3", "deploy/python/infer.py", "--save_dir", f"{CPU_CHAIN}/out"))
    shown = render(seg, tmp_path / "s").find("figure").find("span", cls="pred").attrs["data-text"]
    assert shown == "2x4 mask: class 1 100.0%"
