"""Does the reference target learn? whole_train_whole_infer of the CPU config, timed, on a copy.

From scratch: the config names the shipped pretrained weights (examples/tinyrec/pretrained/),
so the copy of the config used here sets ``Global.pretrained_model:null``.
Prepares the whole-mode synthetic data in a temporary copy of examples/tinyrec, runs
the chain through `tipc run`, and prints the eval stage's word accuracy against the
goal (>= 90 %) and the wall time against its budget (10 minutes on 2 CPU cores).
Exit 1 when either is missed. About five minutes: not part of `make test`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIGS = REPO / "test_configs" / "tinyrec"
CONFIG_NAME = "train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"
PRETRAINED = "Global.pretrained_model:"
MODE = "whole_train_whole_infer"
GOAL_ACC, BUDGET_S = 0.90, 600.0


def tipc(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "tipc", *args], cwd=REPO, check=True)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "tinyrec"
        shutil.copytree(
            REPO / "examples" / "tinyrec",
            target,
            ignore=shutil.ignore_patterns("train_data", "inference", "output", "test_tipc", "log", "__pycache__"),
        )
        configs = Path(tmp) / "configs"
        shutil.copytree(CONFIGS, configs, ignore=shutil.ignore_patterns("golden"))
        config = configs / CONFIG_NAME
        lines = config.read_text().splitlines(keepends=True)
        config.write_text("".join(f"{PRETRAINED}null\n" if line.startswith(PRETRAINED) else line for line in lines))
        start = time.perf_counter()
        tipc("prepare", "--config", str(config), "--mode", MODE, "--repo", str(target))
        prepared = time.perf_counter()
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "tipc",
                "run",
                "--config",
                str(config),
                "--mode",
                MODE,
                "--repo",
                str(target),
                "--python",
                sys.executable,
                "--no-report",
            ],
            cwd=REPO,
            check=False,
        )
        wall = time.perf_counter() - start
        results = target / "test_tipc/output/tinyrec" / MODE / "results.jsonl"
        records = [json.loads(line) for line in results.read_text().splitlines()]
    by_kind = {r["kind"]: r for r in records}
    acc = by_kind["eval"]["metrics"].get("acc", 0.0)
    train = by_kind["train"]
    print(
        f"tinyrec_learns: {MODE}: eval acc {acc:.4f} (goal >= {GOAL_ACC:.2f}, ratio {acc / GOAL_ACC:.3f}); "
        f"wall {wall:.0f} s incl. prepare {prepared - start:.0f} s (budget {BUDGET_S:.0f} s, "
        f"ratio {wall / BUDGET_S:.2f}); train {train['duration']:.0f} s at "
        f"{train['metrics'].get('ips', 0):.1f} samples/s; tipc run exit {run.returncode}"
    )
    return 0 if run.returncode == 0 and acc >= GOAL_ACC and wall <= BUDGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
