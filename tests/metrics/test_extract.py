from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.documented import metric_keys
from tipc.metrics import extract
from tipc.plan.model import StageKind

FIXTURES = Path(__file__).parent / "fixtures"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("kind", "name", "expected"),
    [
        ("train", "train_distillation.log", {"ips": pytest.approx(32.0), "loss": 15.0, "steps": 4}),
        ("eval", "eval_distillation.log", {"acc": 0.9249999537500023, "fps": 10.6}),
        (
            "infer",
            "rec_cpu_bs6_stray_nvcc.log",
            {"batch_size": 6, "data_num": 2, "inference_ms": 301.5, "gpu_rss_mb": None, "runtime_device": "cpu"},
        ),
        (StageKind.INFER, "det_gpu_trt_fp16.log", {"model_name": "det", "gpu_util": 37.0}),
        ("infer", "no_block.log", {}),
        ("export", "rec_cpu_bs6_stray_nvcc.log", {}),
    ],
    ids=["train", "eval", "infer", "infer-enum-kind", "infer-without-block", "export-has-none"],
)
def test_extract(kind, name, expected):
    result = extract(kind, fixture(name))
    assert {k: result[k] for k in expected} == expected
    assert (result == {}) == (expected == {})


def test_infer_keys_are_the_documented_ones():
    assert set(extract("infer", fixture("rec_cpu_bs6_stray_nvcc.log"))) == metric_keys("infer")


def test_unknown_kind_is_an_error():
    with pytest.raises(ValueError, match="unknown stage kind 'deploy'"):
        extract("deploy", "")
