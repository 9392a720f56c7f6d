"""Free-key lines with a key of the wrong kind for their role give a plan warning, never a refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.plan_factory import make_plan
from tipc.config.locate import find_configs
from tipc.dialects.paddleocr.config import load_any_config
from tipc.dialects.paddleocr.config.formats import config_modes
from tipc.dialects.paddleocr.config.roles import WARNING
from tipc.dialects.paddleocr.plan import build_plan
from tipc.plan import PlanOptions

REPO = Path(__file__).resolve().parents[2]


def warnings(plan) -> list[str]:
    return [note for note in plan.notes if note.startswith(WARNING)]


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (
            {"train_use_gpu": "Global.auto_cast:fp32", "autocast": "Global.use_gpu:True"},
            [
                "warning: line 5: found 'Global.auto_cast', the usual key of role autocast, for role train_use_gpu; "
                "expected a trainer override (Section.key) such as 'Global.use_gpu' (swapped lines?)",
                "warning: line 6: found 'Global.use_gpu', the usual key of role train_use_gpu, for role autocast; "
                "expected a trainer override (Section.key) such as 'Global.auto_cast' (swapped lines?)",
            ],
        ),
        (
            {"checkpoints": "--use_gpu:", "infer_use_gpu": "Global.checkpoints:True|False"},
            [
                "warning: line 29: found '--use_gpu', the usual key of role infer_use_gpu, for role checkpoints; "
                "expected a trainer override (Section.key) such as 'Global.checkpoints' (swapped lines?)",
                "warning: line 41: found 'Global.checkpoints', the usual key of role checkpoints, for role infer_use_gpu; "
                "expected a predictor flag (--flag) such as '--use_gpu' (swapped lines?)",
            ],
        ),
        (
            {"epoch": "--epoch:lite_train_lite_infer=3"},
            [
                "warning: line 7: found '--epoch', a predictor flag (--flag), for role epoch; "
                "expected a trainer override (Section.key) such as 'Global.epoch_num'"
            ],
        ),
        (
            {"precision": "Global.precision:fp32"},
            [
                "warning: line 46: found 'Global.precision', a trainer override (Section.key), for role precision; "
                "expected a predictor flag (--flag) such as '--precision'"
            ],
        ),
    ],
    ids=["use_gpu-autocast-swapped", "checkpoints-use_gpu-swapped", "flag-for-override", "override-for-flag"],
)
def test_keys_of_the_wrong_kind_are_warned_about_by_line(lines, expected):
    plan = make_plan(**lines)
    assert warnings(plan) == expected
    assert plan.chains  # warned, not refused: the bash runs such configs


@pytest.mark.parametrize(
    "lines",
    [
        {
            "pretrained_model": "Architecture.Backbone.checkpoints:null",
            "checkpoints": "Architecture.Backbone.checkpoints:",
        },
        {"checkpoints": "Global.pretrained_model:"},
        {"model_dir": "--det_model_dir:", "batch_size": "--det_batch_num:1"},
        {"train_use_gpu": "Global.use_npu:True|True"},
        {"save_log": "null:null", "benchmark": "null:null", "train_param1": "--profiler_options:x"},
    ],
    ids=["layoutxlm-checkpoints", "pretrained-as-export-weights", "det-flags", "npu", "null-and-free-params"],
)
def test_unusual_keys_of_the_right_kind_are_not_warned_about(lines):
    assert warnings(make_plan(**lines)) == []


CONFIGS = find_configs(REPO / "test_configs")


@pytest.mark.parametrize("config", CONFIGS, ids=[str(c.relative_to(REPO / "test_configs")) for c in CONFIGS])
def test_shipped_configs_plan_without_warnings(config):
    parsed = load_any_config(config)
    for mode in config_modes(parsed):
        assert warnings(build_plan(parsed, PlanOptions(mode, python="py"))) == []
