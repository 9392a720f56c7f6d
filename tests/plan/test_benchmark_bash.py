"""benchmark_train plans against PaddleOCR's own ``benchmark_train.sh``, run with a recording interpreter.

Runs when ``TIPC_PADDLEOCR`` names a checkout (its ``test_tipc/benchmark_train.sh``, ``common_func.sh`` and
``test_train_inference_python.sh`` are copied into a scratch directory and run there, with ``python`` on
PATH printing its argv as JSON). Every planned stage's log must be a file the script wrote, holding the
argv tipc would run; the harness's results_python.log lines must be the plan's legacy lines; the analysis
step's arguments must be the plan's speed spec. tipc's launch
``--log_dir=`` (every rank's log kept) is the one token the script lacks.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tipc.config.benchmark import parse_selectors
from tipc.config.locate import target_configs
from tipc.dialects.paddleocr.config import load_config
from tipc.dialects.paddleocr.plan import build_plan
from tipc.plan import PlanOptions
from tipc.plan.model import BenchmarkOptions, Plan

CHECKOUT = os.environ.get("TIPC_PADDLEOCR", "")
pytestmark = [
    pytest.mark.skipif(not CHECKOUT, reason="TIPC_PADDLEOCR is not set: no benchmark_train.sh to run"),
    pytest.mark.skipif(shutil.which("bash") is None, reason="no bash to run PaddleOCR's script with"),
]
ANSI = re.compile(r"\x1b\[[0-9;]*m")
STATUS = re.compile(r"^ Run (successfully|failed) with command - (.*?) - (.*) - (\S*) $")
LOG_DIR = re.compile(r" --log_dir=\S+")  # tipc's launch keeps every rank's log
SCRIPTS = ("benchmark_train.sh", "common_func.sh", "test_train_inference_python.sh")
TINYREC = (
    Path(__file__).resolve().parents[2]
    / "test_configs/tinyrec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"
)


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    (tmp_path / "test_tipc").mkdir()
    for name in SCRIPTS:
        shutil.copy(Path(CHECKOUT) / "test_tipc" / name, tmp_path / "test_tipc" / name)
    (tmp_path / "bin").mkdir()
    stub = tmp_path / "bin" / "python"
    stub.write_text(f"#!{sys.executable}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n")
    stub.chmod(0o755)
    return tmp_path


def run_script(scratch: Path, config: Path, params: str, profiling: str) -> tuple[Plan, str]:
    """The script's run (its stdout) and tipc's plan of the same run."""
    logs = scratch / "bench"
    env = {
        **os.environ,
        "PATH": f"{scratch / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "BENCHMARK_LOG_DIR": str(logs),
        "PROFILING_TIMER_ONLY": profiling,
    }
    argv = ["bash", "test_tipc/benchmark_train.sh", str(config), "benchmark_train", *([params] if params else [])]
    done = subprocess.run(argv, cwd=scratch, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    selectors = parse_selectors(params) if params else ()
    options = PlanOptions(
        "benchmark_train",
        repo=str(scratch),
        python="python",
        benchmark=BenchmarkOptions(selectors, str(logs), profiling),
    )
    return build_plan(load_config(config), options), done.stdout


def recorded(text: str) -> list[list[str]]:
    """The argv lists the stub printed."""
    return [json.loads(line) for line in text.splitlines() if line.startswith('["')]


def status_lines(scratch: Path, plan: Plan) -> list[tuple[str, str, str]]:
    """(model, command, log) of the harness's results_python.log lines (the stub writes no train.log, so
    the harness may call a run failed: the commands are what is compared)."""
    text = ANSI.sub("", (scratch / plan.output_dir / "results_python.log").read_text())
    return [m.groups()[1:] for m in map(STATUS.match, text.splitlines()) if m]


def assert_same_runs(plan: Plan, stdout: str, scratch: Path) -> None:
    assert list(plan.stages())
    for stage in plan.stages():
        planned = [token for token in stage.argv[1:] if not LOG_DIR.match(f" {token}")]
        assert recorded(Path(stage.log).read_text()) == [planned], stage.id
    expected = [(plan.model, LOG_DIR.sub("", s.legacy_command), s.legacy_log) for s in plan.stages()]
    assert status_lines(scratch, plan) == expected
    analysed = [argv for argv in recorded(stdout) if argv[0].endswith("analysis.py")]
    # The first call only: the script clobbers the model name after it (B16), tipc does not.
    train = next(s for s in plan.stages() if s.speed)
    speed = train.speed
    assert speed is not None
    assert dict(zip(analysed[0][1::2], analysed[0][2::2], strict=True)) == {
        "--filename": train.log,
        "--speed_log_file": speed.file,
        "--model_name": speed.model_name,
        "--base_batch_size": str(speed.batch_size),
        "--run_mode": speed.run_mode,
        "--fp_item": speed.fp_item,
        "--keyword": "ips:",
        "--skip_steps": "2",
        "--device_num": speed.device_num,
        "--speed_unit": speed.speed_unit,
        "--convergence_key": "loss:",
    }


@pytest.mark.parametrize(
    ("params", "profiling"),
    [
        ("dynamic_bs32_fp32_DP_N1C1", "True"),
        ("dynamic_bs16_fp32_DP_N1C2", "True"),
        ("dynamicTostatic_bs8_fp16_DP_N1C1", "False"),
        ("dynamic_bs8_fp32_DP_N1C8", "no"),
        ("", "True"),
    ],
    ids=["one-card-profiled", "two-cards", "to-static-amp-timer-only-false", "eight-cards", "no-params"],
)
def test_the_script_runs_what_the_tinyrec_plan_says(scratch, params, profiling):
    assert_same_runs(*run_script(scratch, TINYREC, params, profiling), scratch)


def paddleocr_benchmark_configs() -> list[Path]:
    """PaddleOCR's configs with the section whose eval and norm_export sit on the physical lines the script
    edits (24 and 30): elsewhere the script nulls other lines (B7), tipc the roles."""
    if not CHECKOUT:
        return []
    found = []
    for path in target_configs(Path(CHECKOUT)):
        lines = path.read_text(errors="replace").splitlines()
        section = "train_benchmark_params" in "".join(lines) and len(lines) > 30
        if section and lines[23].startswith("eval:") and lines[29].startswith("norm_export:"):
            found.append(path)
    return found


def test_the_script_runs_what_paddleocrs_plans_say(scratch):
    configs = paddleocr_benchmark_configs()
    if not configs:
        pytest.skip(f"no config with train_benchmark_params in {CHECKOUT}")
    for config in configs:
        for params in ("dynamic_bs8_fp16_DP_N1C1", "dynamic_bs8_fp32_DP_N1C4"):
            for folder in ("bench", "test_tipc/output"):
                shutil.rmtree(scratch / folder, ignore_errors=True)
            assert_same_runs(*run_script(scratch, config, params, "True"), scratch)
