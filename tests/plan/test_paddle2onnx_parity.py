"""Plan parity with each suite's own ``test_tipc/test_paddle2onnx.sh``, on every paddle2onnx config of the
suite snapshots (``../shared/suites`` beside the checkout, or ``TIPC_SUITES``), asked with a recording
interpreter: the bash runs with ``python:`` and ``paddle2onnx`` replaced by a program that records its
argv and folder, and its ``results_paddle2onnx.log`` is read back.

Compared, in order: every command the bash ran (program, arguments, folder) with the plan's stages,
and every status line with the plan's. tipc's additions are left out (the Paddle Inference run and
the agreement check of PaddleOCR layouts), and so is the one deliberate difference: tipc does not pass
``--enable_dev_version`` (see ``tipc.dialects.paddleocr.plan.paddle2onnx``). PaddleClas writes absolute paths from the
folder it runs in; they are compared with that folder spelled ``.``.
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

from tests.support.suite_bash import suites_root
from tipc.config.modes import Mode
from tipc.dialects.paddleocr.config import load_any_config
from tipc.dialects.paddleocr.plan import build_plan
from tipc.plan import PlanOptions
from tipc.plan.model import Plan, Stage
from tipc.run.legacy import stage_line

REPO = Path(__file__).resolve().parents[2]
# Found as every parity test finds them (``TIPC_SUITES``, else ``shared/suites`` beside the checkout or above it).
SUITES = suites_root(REPO) or REPO.parent / "shared" / "suites"
CONFIGS = sorted(SUITES.glob("*/test_tipc/configs/**/*paddle2onnx_python*.txt")) if SUITES.is_dir() else []
DEV_FLAG = re.compile(r" --enable_dev_version=\S+")
ADDED = ("infer_paddle[", "agree[")  # tipc's stages: the bash has none
SCRIPT_ADDS_DEV_FLAG = ("PaddleOCR", "PaddleClas")
RECORDER = f"""#!{sys.executable}
import json, os, sys
with open(os.environ["TIPC_RECORD"], "a") as out:
    out.write(json.dumps({{"argv": sys.argv, "cwd": os.getcwd()}}) + "\\n")
"""

pytestmark = pytest.mark.skipif(
    not CONFIGS, reason=f"no suite snapshots at {SUITES} (set TIPC_SUITES to their folder to compare with the bash)"
)


def suite_of(config: Path) -> str:
    return config.relative_to(SUITES).parts[0]


def ask_the_bash(config: Path, work: Path) -> tuple[list[dict], list[str], Path]:
    """What the suite's script runs for ``config`` in ``work``: its commands and its status lines."""
    tipc_dir = work / "test_tipc"
    tipc_dir.mkdir(parents=True)
    scripts = SUITES / suite_of(config) / "test_tipc"
    for script in (*scripts.glob("*.sh"), *scripts.glob("*.py")):
        shutil.copy(script, tipc_dir)
    (work / "deploy").mkdir()  # PaddleClas runs its predictor after `cd deploy`
    bin_dir = work / "bin"
    bin_dir.mkdir()
    for name in ("paddle2onnx", "recorder"):  # the converter on PATH, and the config's python
        (bin_dir / name).write_text(RECORDER)
        (bin_dir / name).chmod(0o755)
    recorder = bin_dir / "recorder"
    text = config.read_text(encoding="utf-8")
    copied = work / config.name
    copied.write_text(re.sub(r"(?m)^python:.*$", f"python:{recorder}", text, count=1), encoding="utf-8")
    record = work / "record.jsonl"
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_VISIBLE_DEVICES", "MODE")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env['PATH']}", TIPC_RECORD=str(record))
    script = tipc_dir / "test_paddle2onnx.sh"
    done = subprocess.run(
        ["bash", str(script), str(copied)], cwd=work, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    runs = [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []
    status = sorted(work.glob("test_tipc/output/*/**/results_paddle2onnx.log")) or sorted(
        work.glob("test_tipc/output/*/results_paddle2onnx.log")
    )
    lines = status[0].read_text().splitlines() if status else []
    return runs, [line.removeprefix("\x1b[33m").removesuffix("\x1b[0m") for line in lines], recorder


def bash_view(runs: list[dict], lines: list[str], work: Path, suite: str) -> tuple[list[tuple], list[str]]:
    """The bash's commands and lines, less the flag its script adds (PaddleOCR, PaddleClas; a config's own
    ``--enable_dev_version`` is config text, passed on like any other)."""
    root = f"{work}/test_tipc/"
    added = suite in SCRIPT_ADDS_DEV_FLAG
    commands = [
        (Path(r["argv"][0]).name,
         tuple(a for a in r["argv"][1:] if not (added and a.startswith("--enable_dev_version="))),
         os.path.relpath(r["cwd"], work))
        for r in runs
    ]  # fmt: skip
    return commands, [(DEV_FLAG.sub("", line) if added else line).replace(root, "./test_tipc/") for line in lines]


def plan_view(plan: Plan, tail: str) -> tuple[list[tuple], list[str]]:
    stages: list[Stage] = [s for s in plan.stages() if not s.name.startswith(ADDED)]
    commands = [(Path(s.argv[0]).name, s.argv[1:], os.path.normpath(s.cwd)) for s in stages]
    return commands, [stage_line(True, plan.model, s, tail).rstrip("\n") for s in stages]


@pytest.mark.parametrize("config", CONFIGS, ids=[str(c.relative_to(SUITES)) for c in CONFIGS])
def test_the_plan_runs_what_the_suites_script_runs(config: Path, tmp_path: Path) -> None:
    work = tmp_path / "suite"
    runs, lines, recorder = ask_the_bash(config, work)
    plan = build_plan(
        load_any_config(work / config.name), PlanOptions(mode=Mode.PADDLE2ONNX_INFER, python=str(recorder))
    )
    assert runs, "the bash ran nothing"
    expected_commands, expected_lines = bash_view(runs, lines, work, suite_of(config))
    commands, status = plan_view(plan, plan.status_tail)
    assert commands == expected_commands
    assert status == expected_lines
    assert plan.status_log == "results_paddle2onnx.log"
