"""Pretrained weights a training loads, and dependency releases the target cannot run with: the
doctor fails what would make a stage fail, with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.doctor.fakes import CPU_ENV, FakeProbes
from tests.support.plan_factory import make_plan
from tipc.doctor.checks import State, gpu_need
from tipc.doctor.examine import examine
from tipc.doctor.known_bad import KnownBad, check_known_bad, in_range, load_table
from tipc.doctor.weights import check_pretrained, train_ymls

ON_CPU = gpu_need(False, "cpu", "--device cpu")
YML = "Global:\n  pretrained_model: {yml}\nTrain:\n  dataset:\n    transforms:\n      - {transform}: {{}}\n"


def repo(tmp_path: Path, yml: str = "null", transform: str = "RecAug") -> Path:
    path = tmp_path / "test_tipc/configs/rec/rec.yml"
    path.parent.mkdir(parents=True)
    path.write_text(YML.format(yml=yml, transform=transform))
    return tmp_path


def weights(root: Path, name: str) -> None:
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_bytes(b"w")


@pytest.mark.parametrize(
    ("line", "yml", "present", "state"),
    [
        ("Global.pretrained_model:null", "./pretrain_models/yml_w", [], State.FAIL),
        ("Global.pretrained_model:null", "./pretrain_models/yml_w", ["pretrain_models/yml_w.pdparams"], State.PASS),
        ("Global.pretrained_model:./pretrain_models/o_w", "null", [], State.FAIL),
        ("Global.pretrained_model:./pretrain_models/o_w", "null", ["pretrain_models/o_w.pdparams"], State.PASS),
        (
            "Global.pretrained_model:./pretrain_models/o_w.pdparams",
            "null",
            ["pretrain_models/o_w.pdparams"],
            State.PASS,
        ),
        ("Global.pretrained_model:./pretrain_models/o_w", "null", ["pretrain_models/o_w"], State.FAIL),
        (
            "Global.pretrained_model:./pretrain_models/o_w",
            "./pretrain_models/yml_w",
            ["pretrain_models/o_w.pdparams"],
            State.PASS,
        ),
        ("Global.pretrained_model:null", "null", [], State.NA),
        ("Global.pretrained_model:null", "https://paddleocr.bj.bcebos.com/w.pdparams", [], State.NA),
        ("Global.pretrained_model:./test_tipc/output/rec/lite_train_lite_infer/w", "null", [], State.NA),
    ],
    ids=[
        "yml-names-missing",
        "yml-names-present",
        "override-names-missing",
        "override-names-present",
        "override-with-suffix",
        "a-file-without-pdparams-is-not-what-the-trainer-loads",
        "override-wins-over-yml",
        "none",
        "url-downloaded-by-the-trainer",
        "made-by-the-run",
    ],
)
def test_pretrained_weights_are_checked_as_the_trainer_resolves_them(tmp_path, line, yml, present, state):
    root = repo(tmp_path, yml)
    for name in present:
        weights(root, name)
    plan = make_plan(options={"repo": str(root)}, pretrained_model=line)
    check = check_pretrained(plan, train_ymls(plan))
    assert check.state is state, check.detail
    if state is State.FAIL:
        assert "will fail at their start" in check.detail and "::train loads ./pretrain_models/" in check.detail
        assert "Global.pretrained_model=null" in check.fix


@pytest.mark.parametrize(
    ("version", "bad", "inside"),
    [
        ("2.4.0", ">=2.4", True),
        ("2.3.5", ">=2.4", False),
        ("2.4.0rc1", ">=2.4", True),
        ("1.26.4", ">=2.0,<2.2", False),
        ("2.1.3", ">=2.0,<2.2", True),
        ("3.0.1", "==3.0", True),
        ("", ">=2.4", False),
    ],
    ids=["at-the-bound", "below", "pre-release", "below-range", "in-range", "series", "unknown"],
)
def test_version_ranges(version, bad, inside):
    assert in_range(version, bad) is inside


def test_the_table_names_the_numpy_release_paddleocr_detection_cannot_run_with():
    (numpy,) = [e for e in load_table() if e.package == "numpy"]
    assert (numpy.target, numpy.bad, numpy.uses) == ("PaddleOCR", ">=2.4", "EastRandomCropData")
    assert numpy.source == "docs/paddleocr-detection.md"
    assert "numpy<2.4" in Path(__file__).resolve().parents[2].joinpath(numpy.source).read_text()


ENTRY = KnownBad("PaddleOCR", "ppocr/data/imaug/random_crop_data.py", "EastRandomCropData", "numpy", ">=2.4",
                 "the loader retries forever", "pip install 'numpy<2.4'", "docs/paddleocr-detection.md")  # fmt: skip


@pytest.mark.parametrize(
    ("marker", "transform", "numpy", "state"),
    [
        (True, "EastRandomCropData", "2.4.0", State.FAIL),
        (True, "EastRandomCropData", "2.3.5", State.PASS),
        (True, "RecAug", "2.4.0", State.PASS),
        (False, "EastRandomCropData", "2.4.0", State.PASS),
        (True, "EastRandomCropData", "", State.PASS),
    ],
    ids=["det-with-numpy-2.4", "det-with-numpy-2.3", "rec-config", "another-target", "no-numpy"],
)
def test_a_known_bad_release_fails_the_configs_it_breaks(tmp_path, marker, transform, numpy, state):
    root = repo(tmp_path, transform=transform)
    if marker:
        weights(root, ENTRY.marker)
    plan = make_plan(options={"repo": str(root)})
    texts = [t.text for t in train_ymls(plan)]
    (check,) = check_known_bad(root, texts, {"numpy": numpy}, [ENTRY])
    assert check.state is state
    if state is State.FAIL:
        assert check.detail.startswith("numpy 2.4.0 with PaddleOCR (>=2.4 is known bad): the loader retries")
        assert check.fix == "pip install 'numpy<2.4'"


def test_the_doctor_report_fails_a_config_whose_weights_are_missing(tmp_path):
    root = repo(tmp_path, "./pretrain_models/absent")
    for script in ("tools/train.py", "tools/export_model.py", "tools/infer/predict_rec.py"):
        weights(root, script)
    plan = make_plan(options={"repo": str(root)}, benchmark="--benchmark:False")
    report = examine(plan, ON_CPU, FakeProbes(env=CPU_ENV), display="rec.txt")
    assert [c.name for c in report.failures()] == ["pretrained weights"]
