"""Harness overhead: ``pytest tipc`` vs the same argv lists run back to back with no harness.

Builds a fake-target plan of 54 stages (2 chains × (train, eval, export, 24
infer cases)), then times, best of ``--repeat`` interleaved rounds:

* bare: each stage's argv through ``subprocess.run`` into a log file, in plan order;
* tipc: ``python -m pytest <tipc> --config … --mode …`` in a fresh process;
* startup: the same with ``--collect-only`` (interpreter, pytest, plan; runs nothing).

and prints the overhead per stage, with and without the fixed startup.
Target: ≤ 10 ms per stage beyond startup.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAKE = ROOT / "tests" / "fake_target"
SOURCE = FAKE / "configs" / "fake_rec" / "train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"
MODE = "lite_train_lite_infer"
TARGET_MS = 10.0
WIDEN = {  # line prefix -> value: 2 chains, 6 thread counts × 4 batch sizes per chain
    "model_name:": "fake_rec_bench",
    "Global.auto_cast:": "fp32|amp",
    "--cpu_threads:": "1|2|3|4|5|6",
    "--rec_batch_num:": "1|2|3|4",
}


def make_repo(work: Path) -> tuple[Path, Path]:
    repo = work / "fake_target"
    shutil.copytree(FAKE, repo, ignore=shutil.ignore_patterns("test_tipc", "__pycache__"))
    lines = []
    for line in SOURCE.read_text().splitlines():
        key = next((k for k in WIDEN if line.startswith(k)), None)
        lines.append(f"{key}{WIDEN[key]}" if key else line)
    config = repo / "configs" / "fake_rec" / "bench.txt"
    config.write_text("\n".join(lines) + "\n")
    (work / "pytest.ini").write_text("[pytest]\n")
    return repo, config


def best_of(repeat: int, runs: dict, reset) -> dict[str, float]:
    """The fastest of ``repeat`` rounds for each run. Each round times every run once, in turn,
    so that a busy spell on a shared machine slows all of them alike instead of one."""
    best = {name: float("inf") for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            reset()
            t0 = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tipc.config import load_config
    from tipc.plan import PlanOptions, build_plan
    from tipc.run.executor import child_env

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        repo, config = make_repo(work)
        plan = build_plan(load_config(str(config)), PlanOptions(mode=MODE, repo=str(repo), python=sys.executable))
        stages = list(plan.stages())
        output = repo / "test_tipc"

        def reset() -> None:
            shutil.rmtree(output, ignore_errors=True)

        def bare() -> None:
            for stage in stages:
                log = repo / stage.log
                log.parent.mkdir(parents=True, exist_ok=True)
                with open(log, "wb") as out:
                    subprocess.run(stage.argv, cwd=repo, env=child_env(stage.env, os.environ), stdout=out,
                                   stderr=subprocess.STDOUT, check=True)

        pytest_argv = [sys.executable, "-m", "pytest", str(ROOT / "tipc"), "-c", str(work / "pytest.ini"),
                       "--config", str(config), "--mode", MODE, "--python", sys.executable, "-q",
                       "-p", "no:cacheprovider"]

        def harness(*extra: str):
            def run() -> None:
                subprocess.run(pytest_argv + list(extra), cwd=work, check=True, stdout=subprocess.DEVNULL)
            return run

        best = best_of(args.repeat, {"bare": bare, "tipc": harness(), "start": harness("--collect-only")}, reset)
        t_bare, t_tipc, t_start = best["bare"], best["tipc"], best["start"]

    n = len(stages)
    per_stage = (t_tipc - t_bare) / n * 1000
    marginal = (t_tipc - t_start - t_bare) / n * 1000
    print(f"stages: {n}")
    print(f"bare argv back to back: {t_bare:.3f} s ({t_bare / n * 1000:.1f} ms/stage)")
    print(f"pytest tipc:            {t_tipc:.3f} s (startup, --collect-only: {t_start:.3f} s)")
    print(f"overhead per stage:     {per_stage:.2f} ms including startup, {marginal:.2f} ms beyond it "
          f"(target <= {TARGET_MS:g} ms: {'met' if marginal <= TARGET_MS else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
