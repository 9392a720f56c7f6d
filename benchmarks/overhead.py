"""Harness overhead, side by side: bare argv lists, PaddleOCR's bash, ``pytest tipc`` and ``tipc run``.

Builds a fake-target plan of 54 stages (2 chains × (train, eval, export, 24 infer
cases)) whose stages print what real stages print: each train 200 step lines (into its
stdout and its appended ``train.log``), each infer a prediction line per image (40) and
AutoLog's benchmark block; then times ``--repeat`` interleaved rounds, each from a clean
output folder and a clean report folder, and prints the best round of each (then the medians):

* bare:  each stage's argv through ``subprocess.run`` into a log file, in plan order;
* bash:  ``test_tipc/test_train_inference_python.sh <config> <mode>`` from a PaddleOCR
         checkout (``--paddleocr DIR`` or ``TIPC_PADDLEOCR``; skipped, with that reason,
         when none is given), run in the fake target as PaddleOCR runs it in its own;
* pytest tipc: ``python -m pytest tipc --config … --mode …`` in a fresh process, with
         pytest's start included and every installed plugin loaded as a user's pytest loads
         them (the ``[test]`` extra's: xdist, hypothesis, ...);
* tipc run: the same run without pytest;
* pytest alone: pytest running one empty test, with the same plugins: the part of ``pytest tipc``
         that is pytest's own start and end (the plugins' imports, hypothesis's terminal
         summary), printed beside it.

Every contender runs without ``PYTHONDONTWRITEBYTECODE`` (set in some CI images): with it, pytest
rewrites and compiles the asserts of every plugin package it imports (all of hypothesis), on
every start, which is pytest's cost, not tipc's.

Targets (issue 21): the harness (``tipc run``, and ``pytest tipc`` less pytest's own start) at
most 10 ms per stage above the bare commands, and ``pytest tipc`` at most 1.10 × the bash.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAKE = ROOT / "tests" / "fake_target"
SOURCE = FAKE / "configs" / "fake_rec" / "train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"
MODE = "lite_train_lite_infer"
TARGET_MS = 10.0
TARGET_RATIO = 1.10
EPOCHS = 100  # 2 steps an epoch: 200 step lines per train
IMAGES = 40  # a prediction line each, per infer stage
BASH_SCRIPTS = ("test_train_inference_python.sh", "common_func.sh")
WIDEN = {  # line prefix -> value: 2 chains, 6 thread counts × 4 batch sizes per chain
    "model_name:": "fake_rec_bench",
    "Global.epoch_num:": f"lite_train_lite_infer={EPOCHS}",
    "Global.auto_cast:": "fp32|amp",
    "--cpu_threads:": "1|2|3|4|5|6",
    "--rec_batch_num:": "1|2|3|4",
}


def make_repo(work: Path, paddleocr: Path | None) -> tuple[Path, Path]:
    repo = work / "fake_target"
    # Laid out as a PaddleOCR checkout, whose configs declare no target.yaml: every contender
    # runs from the repo's root, as PaddleOCR's own docs run the bash.
    shutil.copytree(FAKE, repo, ignore=shutil.ignore_patterns("test_tipc", "__pycache__", "target.yaml"))
    lines = []
    for line in SOURCE.read_text().splitlines():
        key = next((k for k in WIDEN if line.startswith(k)), None)
        lines.append(f"{key}{WIDEN[key]}" if key else line)
    images = repo / "inference" / "rec_inference"
    first = next(images.iterdir())
    for i in range(IMAGES - len(list(images.iterdir()))):
        shutil.copy(first, images / f"bench_{i}{first.suffix}")
    config = repo / "configs" / "fake_rec" / "bench.txt"
    config.write_text("\n".join(lines) + "\n")
    if paddleocr is not None:
        (repo / "test_tipc").mkdir()
        for name in BASH_SCRIPTS:
            shutil.copy(paddleocr / "test_tipc" / name, repo / "test_tipc" / name)
    (work / "pytest.ini").write_text("[pytest]\n")
    return repo, config


def timings(repeat: int, runs: dict[str, Callable[[], None]], reset: Callable[[], None]) -> dict[str, list[float]]:
    """``repeat`` rounds of each run, sorted. Each round times every run once, in turn, so that a
    busy spell on a shared machine slows all of them alike instead of one."""
    seen: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            reset()
            t0 = time.perf_counter()
            run()
            seen[name].append(time.perf_counter() - t0)
    return {name: sorted(values) for name, values in seen.items()}


def paddleocr_checkout(given: str | None) -> tuple[Path | None, str]:
    """The checkout whose bash to time, or None with the reason it is skipped."""
    if not given:
        return None, "no PaddleOCR checkout given (--paddleocr DIR or TIPC_PADDLEOCR)"
    path = Path(given).resolve()
    missing = [n for n in BASH_SCRIPTS if not (path / "test_tipc" / n).is_file()]
    if missing:
        return None, f"{path}/test_tipc has no {', '.join(missing)}"
    return path, ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--paddleocr",
        default=os.environ.get("TIPC_PADDLEOCR"),
        metavar="DIR",
        help="a PaddleOCR checkout whose test_tipc/ bash to time beside tipc",
    )
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tipc.config import load_config
    from tipc.plan import PlanOptions, build_plan
    from tipc.proc.child import child_env

    paddleocr, skipped = paddleocr_checkout(args.paddleocr)
    # tipc's bytecode, as an install leaves it: under PYTHONDONTWRITEBYTECODE every start would
    # otherwise compile all of tipc (~60 ms) while the bash pays nothing of the kind.
    compileall.compile_dir(ROOT / "tipc", quiet=1)
    bin_dir = str(Path(sys.executable).parent)
    # The configs say `python:python3`: every contender runs this interpreter's python3, and the
    # tipc of this checkout (not some other one an editable install points at).
    env = {
        **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
    }
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        repo, config = make_repo(work, paddleocr)
        plan = build_plan(load_config(str(config)), PlanOptions(mode=MODE, repo=str(repo), python=sys.executable))
        stages = list(plan.stages())
        output = repo / "test_tipc" / "output"

        def reset() -> None:
            # Every round alike: reports kept from round to round would have each report read
            # one more earlier run than the round before, and the best round be the first.
            shutil.rmtree(output, ignore_errors=True)
            shutil.rmtree(work / "reports", ignore_errors=True)

        def bare() -> None:
            for stage in stages:
                log = repo / stage.log
                log.parent.mkdir(parents=True, exist_ok=True)
                with open(log, "wb") as out:
                    subprocess.run(
                        stage.argv,
                        cwd=repo,
                        env=child_env(stage.env, env),
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        check=True,
                    )

        def bash() -> None:
            subprocess.run(
                ["bash", "test_tipc/test_train_inference_python.sh", str(config.relative_to(repo)), MODE],
                cwd=repo,
                env=env,
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )

        common = [
            "--config",
            str(config),
            "--mode",
            MODE,
            "--python",
            sys.executable,
            "--report-dir",
            str(work / "reports"),
        ]
        pytest_env = {k: v for k, v in env.items() if k != "PYTEST_DISABLE_PLUGIN_AUTOLOAD"}

        def pytest_tipc() -> None:
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    str(ROOT / "tipc"),
                    "-c",
                    str(work / "pytest.ini"),
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    *(f"--tipc-{a[2:]}" if a in ("--python", "--report-dir") else a for a in common),
                ],
                cwd=repo,
                env=pytest_env,
                check=True,
                stdout=subprocess.DEVNULL,
            )

        def tipc_run() -> None:
            subprocess.run(
                [sys.executable, "-m", "tipc", "run", *common],
                cwd=repo,
                env=env,
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )

        (work / "empty").mkdir()
        (work / "empty" / "test_nothing.py").write_text("def test_nothing():\n    pass\n")

        def pytest_alone() -> None:  # one empty test: what pytest's start and end cost by themselves
            pytest_args = ["-c", str(work / "pytest.ini"), "-q", "-p", "no:cacheprovider", str(work / "empty")]
            subprocess.run([sys.executable, "-m", "pytest", *pytest_args], cwd=work, env=pytest_env, check=False,
                           stdout=subprocess.DEVNULL)  # fmt: skip

        runs = {
            "bare": bare,
            **({"bash": bash} if paddleocr else {}),
            "pytest tipc": pytest_tipc,
            "tipc run": tipc_run,
            "pytest alone": pytest_alone,
        }
        seen = timings(args.repeat, runs, reset)

    print_figures({name: values[0] for name, values in seen.items()}, len(stages), args.repeat, skipped)
    print_medians({name: statistics.median(values) for name, values in seen.items()})
    return 0


def print_figures(best: dict[str, float], n: int, repeat: int, skipped: str) -> None:
    """The contenders side by side, per stage above bare, the breakdown of ``pytest tipc``, the verdicts."""
    t_bare = best["bare"]
    print(f"stages: {n} (fake target: short python processes that print as real ones do); best of {repeat} rounds")
    for name, seconds in best.items():
        if name == "pytest alone":
            continue
        above = "" if name == "bare" else f", {(seconds - t_bare) / n * 1000:+.1f} ms/stage above bare"
        print(f"  {name:<12} {seconds:6.3f} s ({seconds / n * 1000:5.1f} ms/stage{above})")
    if "bash" not in best:
        print(f"  {'bash':<12} skipped: {skipped}")
    above_ms = (best["pytest tipc"] - t_bare) * 1000
    start_ms = best["pytest alone"] * 1000
    print(
        f"  pytest tipc above bare: {above_ms:.0f} ms = pytest's own start and end {start_ms:.0f} ms "
        f"(pytest running one empty test, no tipc) + tipc {above_ms - start_ms:.0f} ms "
        f"({(above_ms - start_ms) / n:.1f} ms/stage)"
    )
    harness = {
        "tipc run": (best["tipc run"] - t_bare) * 1000 / n,
        "pytest tipc less pytest's start": (above_ms - start_ms) / n,
    }
    verdicts = [
        f"{name}: {ms:.1f} ms/stage above bare (target <= {TARGET_MS:g}: {'met' if ms <= TARGET_MS else 'NOT met'})"
        for name, ms in harness.items()
    ]
    if "bash" in best:
        ratio = best["pytest tipc"] / best["bash"]
        met = "met" if ratio <= TARGET_RATIO else "NOT met"
        verdicts.append(f"pytest tipc / bash = {ratio:.2f} (target <= {TARGET_RATIO:.2f}: {met})")
    print("\n".join(verdicts))


def print_medians(median: dict[str, float]) -> None:
    """The typical round beside the best one: on a shared machine the best rounds of two contenders
    may fall in different quiet spells."""
    ratio = f"; pytest tipc / bash = {median['pytest tipc'] / median['bash']:.2f}" if "bash" in median else ""
    print("medians: " + ", ".join(f"{name} {seconds:.3f} s" for name, seconds in median.items()) + ratio)


if __name__ == "__main__":
    sys.exit(main())
