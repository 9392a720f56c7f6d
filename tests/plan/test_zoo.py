"""The whole model zoo: every ``train_*.txt`` config of a real PaddleOCR checkout, read and planned.

Runs when ``TIPC_PADDLEOCR`` names a checkout (``TIPC_PADDLEOCR=~/PaddleOCR pytest tests/plan/test_zoo.py -s``
prints the survey). Each config is planned in every mode it runs in (a KL quantization config: whole_infer);
one that cannot be must say precisely why, naming its file. The second test runs PaddleOCR's own
``test_ptq_inference_python.sh``, with a recording interpreter, on every PTQ config and compares what it
ran and logged with tipc's plans.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tipc.config.locate import TARGET_CONFIG_DIR, target_configs
from tipc.config.modes import Mode
from tipc.dialects.paddleocr.config import PtqConfig, load_any_config
from tipc.dialects.paddleocr.config.formats import PTQ_MODES, config_modes
from tipc.dialects.paddleocr.plan import build_plan
from tipc.errors import ConfigError
from tipc.plan import Plan, PlanOptions

CHECKOUT = os.environ.get("TIPC_PADDLEOCR", "")
pytestmark = pytest.mark.skipif(not CHECKOUT, reason="TIPC_PADDLEOCR is not set: no PaddleOCR checkout to read")
BUDGET_S = 5.0
PTQ_SCRIPT = "test_ptq_inference_python.sh"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass(frozen=True, slots=True)
class Verdict:
    path: Path
    stages: int  # over all the modes it was planned in
    ptq: bool = False
    error: ConfigError | None = None
    benchmark: bool = False  # planned in benchmark_train too (it has train_benchmark_params)


def survey(paths: tuple[Path, ...]) -> list[Verdict]:
    verdicts = []
    for path in paths:
        try:
            config = load_any_config(path)
            plans = [build_plan(config, PlanOptions(mode, python="python")) for mode in config_modes(config)]
        except ConfigError as error:
            verdicts.append(Verdict(path, 0, error=error))
        else:
            stages = sum(len(list(plan.stages())) for plan in plans)
            benchmark = Mode.BENCHMARK_TRAIN in config_modes(config)
            verdicts.append(Verdict(path, stages, ptq=isinstance(config, PtqConfig), benchmark=benchmark))
    return verdicts


def test_every_real_config_plans_in_its_modes_or_says_precisely_why_not():
    configs = target_configs(Path(CHECKOUT))
    assert configs, f"no train_*.txt under {Path(CHECKOUT) / TARGET_CONFIG_DIR}"
    start = time.perf_counter()
    verdicts = survey(configs)
    elapsed = time.perf_counter() - start
    supported = [v for v in verdicts if v.error is None]
    ptq = sum(v.ptq for v in supported)
    print(
        f"\n{len(supported)} of {len(configs)} configs supported ({len(supported) - ptq} train configs in their modes, with benchmark_train for the "
        f"{sum(v.benchmark for v in supported)} with train_benchmark_params, "
        f"{ptq} PTQ configs in {', '.join(PTQ_MODES)}; {sum(v.stages for v in supported)} stages) in {elapsed:.2f} s"
    )
    for verdict in verdicts:
        if verdict.error is not None:
            print(f"unsupported: {verdict.error}")
    assert elapsed < BUDGET_S
    for verdict in verdicts:
        error = verdict.error
        # Precise: this file, what was found or wrong, and what was expected instead.
        assert error is None or (error.path == str(verdict.path) and "expected" in error.message), error


def record_argv_stub(directory: Path) -> None:
    """``python3.7``, the configs' interpreter, as a recorder: its argv as JSON (into the stage's log)."""
    stub = directory / "python3.7"
    stub.write_text(f"#!{sys.executable}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n")
    stub.chmod(0o755)


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash to run PaddleOCR's script with")
def test_the_ptq_script_runs_what_the_ptq_plans_say(tmp_path):
    scripts = Path(CHECKOUT) / "test_tipc"
    configs = [verdict.path for verdict in survey(target_configs(Path(CHECKOUT))) if verdict.ptq]
    if not configs or not (scripts / PTQ_SCRIPT).is_file():
        pytest.skip(f"no PTQ configs or no {PTQ_SCRIPT} in {CHECKOUT}")
    # The script sources test_tipc/common_func.sh and writes ./test_tipc/output: run a copy, elsewhere.
    (tmp_path / "test_tipc").mkdir()
    for name in (PTQ_SCRIPT, "common_func.sh"):
        shutil.copy(scripts / name, tmp_path / "test_tipc" / name)
    (tmp_path / "bin").mkdir()
    record_argv_stub(tmp_path / "bin")
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    for path in configs:
        plan: Plan = build_plan(load_any_config(path), PlanOptions("whole_infer", python="python3.7"))
        done = subprocess.run(
            ["bash", f"test_tipc/{PTQ_SCRIPT}", str(path), "whole_infer"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        logged = (tmp_path / plan.output_dir / "results_python.log").read_text().splitlines()
        expected = [
            f" Run successfully with command - {plan.model} - {s.legacy_command} - {s.legacy_log} "
            for s in plan.stages()
        ]
        assert [ANSI.sub("", line) for line in logged] == expected, path
        for stage in plan.stages():
            ran = json.loads((tmp_path / stage.log).read_text().splitlines()[-1])
            assert ran == list(stage.argv[1:]), (path, stage.id)
