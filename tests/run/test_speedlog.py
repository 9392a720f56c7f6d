"""benchmark_train's speed JSON, written from the train's own part of its log."""

from __future__ import annotations

import json

from tipc.plan.model import SpeedSpec
from tipc.run.speedlog import speed_run, write_speed

SPEC = SpeedSpec("bench/index/r_rec_bs8_fp32_DP_N1C1_speed", "rec_bs8_fp32_DP", 8, "fp32", "DP", "N1C1", 1, "samples/s")


def steps(ips: float, n: int) -> str:
    return "".join(f"epoch: [1/1], global_step: {i}, loss: 2.0, ips: {ips} samples/s\n" for i in range(n))


def test_only_this_runs_part_of_the_log_counts(tmp_path):
    log = tmp_path / "train.log"
    earlier = steps(1000.0, 20)  # an earlier night's steps, before the offset
    log.write_text(earlier + steps(40.0, 14))
    run = speed_run(SPEC, 12.4, {"model_branch": "dev", "frame_commit": "abc"}, "3.3.1")
    metrics, reason = write_speed(SPEC, tmp_path, log, len(earlier), run)
    written = json.loads((tmp_path / SPEC.file).read_text())
    assert (written["ips"], written["model_run_time"], written["model_branch"]) == (40.0, "12", "dev")
    assert (written["frame_commit"], written["frame_version"], written["model_commit"]) == ("abc", "3.3.1", None)
    assert (metrics["speed_ips"], metrics["speed_records"], reason) == (40.0, 14, "")
    assert metrics["speed_file"] == str(tmp_path / SPEC.file)


def test_a_run_with_too_few_steps_says_so_and_writes_the_steps_zero(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(steps(40.0, 5))
    metrics, reason = write_speed(SPEC, tmp_path, log, 0, speed_run(SPEC, 1.0, {}, ""))
    assert json.loads((tmp_path / SPEC.file).read_text())["ips"] == 0
    assert metrics["speed_ips"] is None
    assert reason.startswith(f"speed: 5 'ips:' records in {log}, the analysis needs more than 12")


def test_a_missing_log_is_no_figure(tmp_path):
    metrics, reason = write_speed(SPEC, tmp_path, tmp_path / "none.log", 0, speed_run(SPEC, 1.0, {}, ""))
    assert metrics["speed_records"] == 0 and "0 'ips:' records" in reason
