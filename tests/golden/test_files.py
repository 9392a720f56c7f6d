"""Golden files: where they are found, tipc's YAML read and written, PaddleOCR's results files as they are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tipc.golden.compare import Case, Evidence, compare
from tipc.golden.files import GoldenError, find_golden, golden_path, golden_text, read_golden
from tipc.golden.model import Golden, Tolerance, TrainFacts
from tipc.metrics.predictions import Detected, MaskSummary, Prediction, Ranked, predictions_of_lines

FIXTURES = Path(__file__).parent / "fixtures"
PADDLEOCR_PY = FIXTURES / "python_ppocr_det_mobile_results_fp32.txt"  # PaddleOCR's test_tipc/results, as it is
PADDLEOCR_CPP = FIXTURES / "cpp_ppocr_det_mobile_results_fp32.txt"
MODE = "lite_train_lite_infer"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("files", "precision", "found"),
    [
        ((f"cfg/{MODE}_fp32.yaml", f"cfg/{MODE}.yaml"), "fp32", f"cfg/{MODE}_fp32.yaml"),
        ((f"cfg/{MODE}_fp32.yaml", f"cfg/{MODE}.yaml"), "fp16", f"cfg/{MODE}.yaml"),
        (("python_ppocr_det_mobile_results_fp32.txt", "python_ppocr_det_mobile_results_fp16.txt"), "fp16",
         "python_ppocr_det_mobile_results_fp16.txt"),
        ((f"other/{MODE}_fp32.yaml", "cfg/whole_infer_fp32.yaml"), "fp32", None),
    ],
    ids=["per-precision-first", "any-precision", "paddleocr-results", "none"],
)  # fmt: skip
def test_lookup_order(tmp_path, files, precision, found):
    for name in files:
        write(tmp_path / name, "")
    result = find_golden(tmp_path, "cfg", MODE, precision)
    assert result == (None if found is None else tmp_path / found)


def test_two_paddleocr_files_for_one_precision_are_refused(tmp_path):
    write(tmp_path / "python_a_results_fp32.txt", "")
    write(tmp_path / "python_b_results_fp32.txt", "")
    with pytest.raises(GoldenError, match="several results files for fp32"):
        find_golden(tmp_path, "cfg", MODE, "fp32")


def test_tipc_golden_round_trips(tmp_path):
    golden = Golden(
        "x",
        "fp16",
        Tolerance(score=0.05, metric=0.02, box=3.0),
        {
            "w1.png": Prediction("w1.png", text="kb9", score=0.93),
            "d.jpg": Prediction("d.jpg", boxes=(((1.0, 2.0),),)),
            "owl.jpeg": Prediction("owl.jpeg", top_k=(Ranked(7, 0.81, "owl"), Ranked(-1, 0.1))),
            "s.jpg": Prediction("s.jpg", objects=(Detected(0, 0.93, (10.0, 10.5, 50.0, 40.0)),)),
            "none.jpg": Prediction("none.jpg", objects=()),
            "c.png": Prediction("c.png", mask=MaskSummary(4, 8, ((0, 0.75), (3, 0.25)))),
        },
        {"acc": 0.5},
        TrainFacts(loss_drop=0.3, metric_floor={"acc": 0.4}),
    )
    path = write(golden_path(tmp_path, "cfg", MODE, "fp16"), golden_text(golden))
    assert path == tmp_path / "cfg" / f"{MODE}_fp16.yaml"
    assert read_golden(path, "fp16") == Golden(
        str(path), *[getattr(golden, f) for f in ("precision", "tolerance", "predictions", "eval", "train")]
    )


def test_tolerances_default_by_precision_and_a_file_may_set_its_own(tmp_path):
    path = write(tmp_path / "g.yaml", "tolerance: {score: 0.5}\npredictions: {}\n")
    assert read_golden(path, "fp32").tolerance == Tolerance(score=0.5, metric=1e-3, box=1.0)
    assert read_golden(path, "int8").tolerance == Tolerance(score=0.5, metric=5e-2, box=5.0, fraction=2e-2)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("tolerance:\n  score: high\n", 2, "tolerance.score: expected a finite number, found 'high'"),
        ("tolerance:\n  scor: 0.1\n", 2, "tolerance: unknown key 'scor', expected score, metric, box"),
        ("eval:\n  acc: 0.1\n  f1: [1]\n", 3, "eval.f1: expected a finite number, found [1]"),
        ("predictions:\n  a.png: {text: x}\n", 2, "predictions.a.png.score: expected a finite number, found None"),
        ("predictions:\n  a.png: 3\n", 2, "predictions.a.png: expected {text, score}, {boxes}, {top_k}, {objects} or {mask}"),
        ("predictions:\n  b.jpg: {boxes: [[1, 2]]}\n", 2, "predictions.b.jpg.boxes: expected a list of [[x, y], ...] boxes"),
        ("train:\n  loss_drop: yes\n", 2, "train.loss_drop: expected a finite number, found True"),
        ("- a\n- b\n", 1, "expected a mapping with tolerance, train, eval and predictions"),
        ("eval: {acc: [\n", 2, "not valid YAML"),
        ("tolerance:\n  score: -0.1\n", 2, "tolerance.score: -0.1: expected a number >= 0"),
        ("tolerance:\n  box: .nan\n", 2, "tolerance.box: expected a finite number, found nan"),
        ("tolerance:\n  metric: .inf\n", 2, "tolerance.metric: expected a finite number, found inf"),
        ("eval:\n  acc: .nan\n", 2, "eval.acc: expected a finite number, found nan"),
        ("train:\n  loss_drop: 1.5\n", 1, "train.loss_drop: 1.5: expected a fraction of the first loss"),
        ("train:\n  loss_drop: -1\n", 1, "train.loss_drop: -1.0: expected a fraction of the first loss"),
        ("eval: {acc: 0.5}\ntrain:\n  metric_floor: {acc: 0.9}\n", 3,
         "train.metric_floor.acc: 0.9 is above eval.acc (0.5) and its tolerance"),
        ("train:\n  metric_floor: {acc: .inf}\n", 2, "train.metric_floor.acc: expected a finite number, found inf"),
        ("predictions:\n  o.jpg: {top_k: [{class_id: x, score: 1}]}\n", 2,
         "predictions.o.jpg: class_id: expected an integer, found 'x'"),
        ("predictions:\n  o.jpg: {top_k: 3}\n", 2, "predictions.o.jpg.top_k: expected a list of mappings"),
        ("predictions:\n  s.jpg: {objects: [{class_id: 1, score: 1, box: [1, 2]}]}\n", 2,
         "predictions.s.jpg: box: expected [x_min, y_min, x_max, y_max]"),
        ("predictions:\n  c.png: {mask: {shape: [4], fractions: {0: 1}}}\n", 2,
         "predictions.c.png.mask: expected {shape: [height, width], fractions: {class id: share}}"),
        ("predictions:\n  c.png: {mask: {shape: [1, 1], fractions: {road: 1}}}\n", 2, "class 'road' is not an integer"),
    ],
    ids=["word-tolerance", "unknown-tolerance", "list-metric", "no-score", "scalar-prediction", "flat-box",
         "bool-drop", "a-list", "broken-yaml", "negative-tolerance", "nan-tolerance", "inf-tolerance", "nan-eval",
         "drop-over-one", "negative-drop", "impossible-floor", "infinite-floor", "top-k-class-word", "top-k-scalar",
         "object-short-box", "mask-short-shape", "mask-class-word"],
)  # fmt: skip
def test_a_bad_golden_names_file_line_and_what_was_expected(tmp_path, text, line, message):
    path = write(tmp_path / "g.yaml", text)
    with pytest.raises(GoldenError) as caught:
        read_golden(path, "fp32")
    assert (caught.value.path, caught.value.line) == (str(path), line)
    assert message in caught.value.message


@pytest.mark.parametrize("path", [PADDLEOCR_PY, PADDLEOCR_CPP], ids=["python-json", "cpp-flat-integers"])
def test_paddleocrs_results_files_are_read_as_they_are(path):
    golden = read_golden(path, "fp32")
    lines = path.read_text().splitlines()
    assert len(golden.predictions) == len(lines)
    first_name = lines[0].split("\t")[0].rsplit("/", 1)[-1]
    assert first_name == "00008790.jpg" and golden.predictions[first_name].boxes
    assert golden.train is None and golden.eval == {}


def test_a_paddleocr_det_log_with_its_own_results_passes_and_a_shifted_one_does_not(tmp_path):
    """What compare_results.py does (grep the log by image name, compare boxes within 1e-3 of integers),
    through tipc: the results file is the golden, the predictor's log lines the evidence."""
    pairs = [line.split("\t") for line in PADDLEOCR_PY.read_text().splitlines()]
    golden = {"fp32": read_golden(PADDLEOCR_PY, "fp32")}
    log = [f"[2026/12/01 01:52:42] ppocr INFO: {name}\t{boxes}" for name, boxes in pairs]
    case = Case("infer[cpu-fp32-bs1]", "fp32", predictions_of_lines(log))
    assert compare(golden, Evidence(cases=(case,))).findings == ()
    name, boxes = pairs[3]
    moved = json.dumps([[[x + 3, y] for x, y in box] for box in json.loads(boxes)])
    log[3] = f"{name}\t{moved}"
    (finding,) = compare(
        golden, Evidence(cases=(Case("infer[cpu-fp32-bs1]", "fp32", predictions_of_lines(log)),))
    ).findings
    assert (finding.figure, finding.found, finding.tolerance) == (name, "a corner 3 px off", "±1 px")


@pytest.mark.parametrize(
    ("line", "number"),
    [("img.jpg\t1 2 3\n", 1), ("ok.jpg\t[]\nimg.jpg no tab\n", 2)],
    ids=["not-8-integers", "no-tab"],
)
def test_a_bad_paddleocr_line_is_named(tmp_path, line, number):
    path = write(tmp_path / "python_x_results_fp32.txt", line)
    with pytest.raises(GoldenError) as caught:
        read_golden(path, "fp32")
    assert caught.value.line == number


def test_the_shipped_tinyrec_golden_reads():
    shipped = Path(__file__).parents[2] / "test_configs/tinyrec/golden"
    path = find_golden(shipped, "train_linux_cpu_normal_normal_infer_python_linux_cpu", MODE, "fp32")
    assert path is not None
    golden = read_golden(path, "fp32")
    # The lite chain fine-tunes converged weights: the loss is only checked for finiteness.
    assert golden.train is not None and golden.train.loss_drop == 0
    assert len(golden.predictions) == 8 and all(p.text for p in golden.predictions.values())
    assert golden.tolerance.score == 0.02  # robust to another CPU's last digits (see the file)
