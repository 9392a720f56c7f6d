"""The analysis step's figures (docs/spec.md §6.4), table-driven."""

from __future__ import annotations

import pytest

from tests.support.documented import metric_keys
from tipc.metrics.speed import (
    SpeedFigures,
    SpeedRun,
    speed_figures,
    speed_json,
    speed_metrics,
    token_after,
    trimmed_mean,
)
from tipc.plan.model import SpeedSpec

SPEC = SpeedSpec("index/r_rec_bs8_fp32_DP_N1C2_speed", "rec_bs8_fp32_DP", 8, "fp32", "DP", "N1C2", 2, "images/s")
RUN = SpeedRun(SPEC, "17", frame_version="3.3.1")
STEP = (
    "epoch: [1/1], global_step: {i}, lr: 0.001, loss: {loss}, avg_batch_cost: 0.1 s, ips: {ips} samples/s, eta: 0:00:01"
)


@pytest.mark.parametrize(
    ("records", "expected"),
    [
        ([100.0] * 12, None),  # more than skip + 10 are needed
        ([1.0, 1.0] + [10.0] * 11, 10.0),  # 11 after the skip, 5 off each end: one left
        ([1.0, 1.0] + [float(i) for i in range(1, 12)] + [1000.0], 6.5),  # sorted: 6 and 7 are left
        ([0.0, 0.0] + [float(i) for i in range(1, 41)], 20.5),  # 40 kept: max(5 %, 5) = 5 from each end
        ([0.0, 0.0] + [float(i) for i in range(1, 201)], 100.5),  # 200 kept: 5 % = 10 from each end
    ],
    ids=["twelve", "thirteen", "fourteen", "forty", "two-hundred"],
)
def test_trimmed_mean_is_the_steps(records, expected):
    assert trimmed_mean(records) == expected


@pytest.mark.parametrize(
    ("line", "key", "expected"),
    [
        ("a ips: 12.5 samples/s", "ips:", "12.5"),
        ("loss: 1.25, acc: 0", "loss:", "1.25"),
        ("avg_ips: 3 x", "ips:", None),  # the exact token only
        ("ips:", "ips:", None),
    ],
    ids=["ips", "comma", "exact-token", "nothing-after"],
)
def test_token_after(line, key, expected):
    assert token_after(line, key) == expected


def test_figures_come_from_every_ips_line_and_the_last_loss():
    lines = [STEP.format(i=i, loss=f"{10 - i / 10:.2f}", ips=float(i)) for i in range(1, 15)]
    figures = speed_figures([*lines, "ips: not-a-number", "done\n"])
    assert figures == SpeedFigures(records=14, ips=8.5, loss="8.60")


def test_the_json_has_the_steps_keys_and_multiplies_by_the_cards():
    out = speed_json(RUN, SpeedFigures(20, 50.0, "1.5"))
    assert list(out) == [
        "model_branch", "model_commit", "model_name", "batch_size", "fp_item", "run_mode", "convergence_value",
        "convergence_key", "ips", "speed_unit", "device_num", "model_run_time", "frame_commit", "frame_version",
    ]  # fmt: skip
    assert (out["ips"], out["speed_unit"], out["convergence_value"], out["model_run_time"]) == (
        100.0,
        "images/s",
        "1.5",
        "17",
    )


def test_too_few_records_is_the_steps_zero_with_no_unit():
    out = speed_json(RUN, SpeedFigures(3, None, None))
    assert (out["ips"], out["speed_unit"], out["convergence_value"]) == (0, "", 0)
    assert speed_metrics(SPEC, SpeedFigures(3, None, None))["speed_ips"] is None


def test_record_metrics_are_the_documented_ones():
    metrics = speed_metrics(SPEC, SpeedFigures(20, 50.0, "1.5"))
    assert (metrics["speed_ips"], metrics["ms_per_step"]) == (100.0, 160.0)  # 8 samples at 50/s per process
    assert {*metrics, "speed_file"} == metric_keys("train (benchmark_train)")
