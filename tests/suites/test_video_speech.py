"""The PaddleVideo and PaddleSpeech dialects: which checkout names them, the modes they offer, and what PaddleVideo's
predictor printed (their plans beside the suites' own bash: ``test_parity_video_speech``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tipc.config.modes import Mode
from tipc.dialects import paddlespeech, paddlevideo
from tipc.dialects.paddlevideo.predict import top1_lines
from tipc.metrics.predictions import Prediction, Ranked
from tipc.plan.model import PlanOptions
from tipc.suites import front


def config_text(inference: str = "tools/predict.py", export: str = "tools/export.py", extra: int = 0) -> str:
    """A config of the common positional layout (51 entries), its values tipc's own."""
    entries = ["model_name:demo", "python:python3", "gpu_list:-1", *["null:null"] * 10, "trainer:norm_train",
               "norm_train:train.py --x 1", *["null:null"] * 13, f"norm_export:{export}", *["null:null"] * 6,
               "infer_model:./weights/demo.pdparams", "infer_export:null", "infer_quant:False",
               f"inference:{inference}", "--use_gpu:False", "--enable_mkldnn:False", "--cpu_threads:1",
               "--batch_size:1", "--use_tensorrt:False", "--precision:fp32", "--model_file:inference.pdmodel",
               "--input_file:./data/x", "null:null", "--enable_benchmark:False", "--params_file:inference.pdiparams",
               *[f"--later_{n}:1" for n in range(extra)]]  # fmt: skip
    return "===train_params===\n" + "\n".join(entries) + "\n"


def checkout(root: Path, marker: str, under: str, text: str) -> Path:
    (root / marker).mkdir(parents=True)
    config = root / under / "test_tipc/configs/demo/train_infer_python.txt"
    config.parent.mkdir(parents=True)
    config.write_text(text)
    return config


@pytest.mark.parametrize(
    ("marker", "under", "name"),
    [("paddlevideo", ".", "PaddleVideo"), ("paddlespeech", "tests", "PaddleSpeech")],
)
def test_a_checkout_names_its_suite(tmp_path, marker, under, name):
    """PaddleSpeech's configs live in ``tests/test_tipc/``: its checkout for tipc is ``tests/``, the package beside it."""
    config = checkout(tmp_path, marker, under, config_text())
    dialect, note = front.dialect_for(config)
    assert dialect.name == name
    assert note.startswith(f"suite {name}: detected from the checkout's")
    plan = front.plan_path(config, PlanOptions(Mode.LITE_TRAIN_LITE_INFER, python="python3"), lambda n: "")
    assert [s.name for s in plan.stages()][:2] == ["train", "export"]


@pytest.mark.parametrize("dialect", [paddlevideo.DIALECT, paddlespeech.DIALECT], ids=lambda d: d.name)
@pytest.mark.parametrize(
    ("inference", "offered"),
    [("tools/predict.py", True), ("null", False), (" null", False)],
)
def test_whole_infer_is_offered_where_an_inference_script_is_named(tmp_path, dialect, inference, offered):
    config = tmp_path / "train_infer_python.txt"
    config.write_text(config_text(inference=inference))
    found = dialect.modes(dialect.load(str(config)))
    assert (Mode.WHOLE_INFER in found) is offered
    assert Mode.KLQUANT_WHOLE_INFER not in found


def test_paddlespeech_reads_the_first_51_lines_only(tmp_path):
    """Its bash reads ``awk 'NR==1, NR==51'``: an entry past that is not there (an unset variable)."""
    config = tmp_path / "train_infer_python.txt"
    config.write_text(config_text(extra=3))
    loaded = paddlespeech.DIALECT.load(str(config))
    assert len(loaded.lines.texts) == 51
    assert loaded.lines.text(51) == ""


def test_a_null_export_with_a_space_exports_nothing(tmp_path):
    """The bash runs ``<python> null`` for ``norm_export: null``; tipc plans no export (docs/suites.md)."""
    config = tmp_path / "train_infer_python.txt"
    config.write_text(config_text(export=" null"))
    loaded = paddlespeech.DIALECT.load(str(config))
    plan = paddlespeech.DIALECT.build(loaded, PlanOptions(Mode.LITE_TRAIN_LITE_INFER, python="python3"), lambda n: "")
    assert [s.name for s in plan.stages()] == ["train"]
    assert [s.reason for s in plan.skipped] == ["export script is null: nothing to infer with"]


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (
            ["Current video file: data/a.avi", "\ttop-1 class: 5", "\ttop-1 score: 0.99"],
            (Prediction("data/a.avi", top_k=(Ranked(5, 0.99),)),),
        ),
        (
            [
                "[2024/01/01 10:00:00] ppvideo INFO: Current video file: b.npy",
                "  top-1 class: 27",
                "  top-1 score: 8.9e-01",
                "Current video file: c.avi",
                "top-1 class: 3",
                "top-1 score: 1",
            ],
            (Prediction("b.npy", top_k=(Ranked(27, 0.89),)), Prediction("c.avi", top_k=(Ranked(3, 1.0),))),
        ),
        (["Current video file: feat.npy :", "{'score': 0.79, 'segment': [0.0, 122.9]}"], ()),  # a localisation
        (["top-1 class: 5", "top-1 score: 0.5"], ()),  # no file named first
        (["Current video file: a.avi", "top-1 score: 0.5"], ()),  # no class
    ],
)
def test_paddlevideo_reads_each_inputs_top1(lines, expected):
    assert top1_lines(lines) == expected


def test_paddlevideo_stops_at_the_limit():
    lines = [t for n in range(5) for t in (f"Current video file: {n}.avi", "top-1 class: 1", "top-1 score: 0.5")]
    assert [p.image for p in top1_lines(lines, limit=2)] == ["0.avi", "1.avi"]
