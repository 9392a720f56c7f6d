"""benchmark_train on the reference target, for real: one process (after its profiling pass) and
``--nproc_per_node 2`` on CPU, the analysis step's speed JSON per run where benchmark_train.sh puts it,
and the report's speedup table."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.support.htmlq import parse
from tests.support.tinyrec import CPU_CONFIG

pytestmark = pytest.mark.slow

MODE = "benchmark_train"
# Batch 8 on 128 images: the same 32 steps a process (16 a rank on two) as the mode's batch 32 on 512, a quarter
# of the images, so the three trainings (profiling pass, one process, two) take 20 s, not 50.
PARAMS = "dynamic_bs8_fp32_DP_N1C1,dynamic_bs8_fp32_DP_N1C2"
TRAIN_IMAGES = "128"
KEYS = [
    "model_branch", "model_commit", "model_name", "batch_size", "fp_item", "run_mode", "convergence_value",
    "convergence_key", "ips", "speed_unit", "device_num", "model_run_time", "frame_commit", "frame_version",
]  # fmt: skip


def tipc(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tipc", *args], env=env, capture_output=True, text=True, timeout=600)


def test_one_and_two_processes_write_speed_json_and_a_speedup(tinyrec, tmp_path):
    repo = tmp_path / "tinyrec"
    shutil.copytree(tinyrec, repo, ignore=shutil.ignore_patterns("test_tipc"))
    logs = tmp_path / "bench"
    env = {**os.environ, "BENCHMARK_LOG_DIR": str(logs)}
    env.pop("PROFILING_TIMER_ONLY", None)  # the script's default: a profiling pass on one card
    prepared = tipc(
        "prepare", "--config", CPU_CONFIG, "--mode", MODE, "--repo", str(repo), "--train-count", TRAIN_IMAGES, env=env
    )
    assert prepared.returncode == 0, prepared.stderr
    done = tipc("run", "--config", CPU_CONFIG, "--mode", MODE, "--repo", str(repo), "--device", "cpu",
                "--python", sys.executable, "--benchmark-params", PARAMS, "--report-dir", str(tmp_path / "reports"),
                env=env)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr

    speeds = {}
    for device, unit in (("N1C1", "samples/s"), ("N1C2", "images/s")):
        speed = json.loads((logs / "index" / f"tinyrec_tinyrec_bs8_fp32_DP_{device}_speed").read_text())
        assert list(speed) == KEYS
        assert (speed["model_name"], speed["batch_size"], speed["device_num"]) == ("tinyrec_bs8_fp32_DP", 8, device)
        assert speed["ips"] > 0 and speed["speed_unit"] == unit and float(speed["convergence_value"]) > 0
        assert "global_step" in (logs / "train_log" / f"tinyrec_tinyrec_bs8_fp32_DP_{device}_log").read_text()
        speeds[device] = speed["ips"]

    profiling = (logs / "profiling_log" / "tinyrec_tinyrec_bs8_fp32_DP_N1C1_profiling").read_text()
    assert "--profiler_options=batch_range=[10,20];state=CPU" in profiling and "Perf Summary" in profiling
    assert not (logs / "profiling_log" / "tinyrec_tinyrec_bs8_fp32_DP_N1C2_profiling").exists()  # one card only

    report = parse((tmp_path / "reports/tinyrec/benchmark_train/latest/index.html").read_text())
    rows = [
        [td.text.strip() for td in tr.find_all("td")]
        for tr in report.find("table", id="train-benchmark-speedup").find_all("tr")[1:]
    ]
    assert [(r[0], r[5]) for r in rows] == [
        ("1 card", "1.00×"),
        ("2 cards", f"{speeds['N1C2'] / speeds['N1C1']:.2f}×"),
    ]
    summary = json.loads((tmp_path / "reports/tinyrec/benchmark_train/latest/train_benchmark.json").read_text())
    print(f"\nbenchmark_train tinyrec bs8 fp32: N1C1 {speeds['N1C1']} samples/s, N1C2 {speeds['N1C2']} images/s, "
          f"speedup {summary['speedups'][1]['speedup']:.2f}x")  # fmt: skip
