"""Harness overhead, side by side: bare argv lists, PaddleOCR's bash, ``pytest tipc`` and ``tipc run``.

Builds a fake-target plan of 54 stages (2 chains × (train, eval, export, 24 infer
cases)) whose stages print what real stages print: each train 200 step lines (into its
stdout and its appended ``train.log``), each infer a prediction line per image (40) and
AutoLog's benchmark block, and a plan of 6 such stages (1 chain × (train, eval, export, 3 infer
cases)); then times ``--repeat`` interleaved rounds, each from a clean output folder and a clean
report folder, and prints the best round of each (then the medians):

* bare:  each stage's argv through ``subprocess.run`` into a log file, in plan order;
* bash:  ``test_tipc/test_train_inference_python.sh <config> <mode>`` from a PaddleOCR
         checkout (``--paddleocr DIR`` or ``TIPC_PADDLEOCR``; skipped, with that reason,
         when none is given), run in the fake target as PaddleOCR runs it in its own;
* pytest tipc: ``python -m pytest tipc --config … --mode …`` in a fresh process, with
         pytest's start included and every installed plugin loaded as a user's pytest loads
         them (the ``[test]`` extra's: xdist, hypothesis, ...);
* tipc run: the same run without pytest;
* pytest alone: pytest running as many empty tests as the plan has stages, with the same plugins:
         the part of ``pytest tipc`` that is pytest's own (its start and end: the plugins' imports,
         hypothesis's terminal summary; and its cost per test), printed beside it;
* the same two without third-party plugins (``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``, tipc's named
         with ``-p``): what those plugins' start costs, which tipc cannot change, shown beside the
         figures a user sees, not instead of them;
* bare, ``pytest tipc``, ``tipc run`` and pytest alone on the 6-stage plan: the difference between
         the two plans' costs above bare is what each further stage costs (the harness's per-stage
         cost), and the rest is what a run costs once (imports, the plan, the report; pytest's start).

With ``--demo``, instead, ``make demo``'s run (``pytest tipc`` on examples/tinyrec, real paddle
training, prepared once as ``make demo`` prepares it) is timed against its stages run bare, in
interleaved rounds: the harness's share of the demo's wall time (run it under the shared lock of
a machine where memory-hungry jobs take turns).

Every contender runs without ``PYTHONDONTWRITEBYTECODE`` (set in some CI images): with it, pytest
rewrites and compiles the asserts of every plugin package it imports (all of hypothesis), on
every start, which is pytest's cost, not tipc's.

Targets: the harness (``tipc run`` and ``pytest tipc``) at most 10 ms per stage above
the bare commands, ``pytest tipc`` at most 1.10 × the bash, and the harness at most 1 % of ``make
demo``'s wall time. Each verdict is printed beside its floor: what pytest's own cost (its start and end,
and per test), which no plugin can shorten, leaves of it.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tipc.plan import Stage

ROOT = Path(__file__).resolve().parents[1]
FAKE = ROOT / "tests" / "fake_target"
SOURCE = FAKE / "configs" / "fake_rec" / "train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"
MODE = "lite_train_lite_infer"
TARGET_MS = 10.0
TARGET_RATIO = 1.10
MODE_DEMO = "lite_train_lite_infer"  # the Makefile's DEMO_MODE
TARGET_DEMO = 0.01  # of the demo's wall time
DEMO_CONFIG = ROOT / "test_configs" / "tinyrec" / "train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"
DEMO_REPO = ROOT / "examples" / "tinyrec"  # its target.yaml's repo
AUTOLOAD = "PYTEST_DISABLE_PLUGIN_AUTOLOAD"
SMALL_SUFFIX = ", 6 stages"  # the contenders on the small plan (pytest alone: 6 empty tests)
# The fronts timed on both plans -> the run of pytest alone that is pytest's own part of them (None: no pytest).
FRONTS = {"tipc run": None, "pytest tipc": "pytest alone", "pytest tipc, no plugins": "pytest alone, no plugins"}
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
SMALL = {**WIDEN, "model_name:": "fake_rec_small", "Global.auto_cast:": "fp32", "--cpu_threads:": "1",
         "--rec_batch_num:": "1|2|3"}  # fmt: skip


def make_repo(work: Path, paddleocr: Path | None) -> tuple[Path, Path, Path]:
    """The fake target, and its two configs: the 54-stage plan and the 6-stage one."""
    repo = work / "fake_target"
    # Laid out as a PaddleOCR checkout, whose configs declare no target.yaml: every contender
    # runs from the repo's root, as PaddleOCR's own docs run the bash.
    shutil.copytree(FAKE, repo, ignore=shutil.ignore_patterns("test_tipc", "__pycache__", "target.yaml"))
    images = repo / "inference" / "rec_inference"
    first = next(images.iterdir())
    for i in range(IMAGES - len(list(images.iterdir()))):
        shutil.copy(first, images / f"bench_{i}{first.suffix}")
    configs = []
    for name, widen in (("bench.txt", WIDEN), ("bench_small.txt", SMALL)):
        lines = []
        for line in SOURCE.read_text().splitlines():
            key = next((k for k in widen if line.startswith(k)), None)
            lines.append(f"{key}{widen[key]}" if key else line)
        configs.append(repo / "configs" / "fake_rec" / name)
        configs[-1].write_text("\n".join(lines) + "\n")
    if paddleocr is not None:
        (repo / "test_tipc").mkdir()
        for name in BASH_SCRIPTS:
            shutil.copy(paddleocr / "test_tipc" / name, repo / "test_tipc" / name)
    (work / "pytest.ini").write_text("[pytest]\n")
    return repo, configs[0], configs[1]


def cpu_seconds() -> float:
    """CPU time of this process and every child it waited for (the contenders and their stages)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timings(
    repeat: int,
    runs: Mapping[str, Callable[[], object]],
    reset: Callable[[], None],
    cpu: dict[str, list[float]] | None = None,
) -> dict[str, list[float]]:
    """``repeat`` rounds of each run, sorted. Each round times every run once, in turn, so that a
    busy spell on a shared machine slows all of them alike instead of one. ``cpu`` gets each run's
    CPU seconds, all its processes together: a busy machine stretches wall time, far less CPU time."""
    seen: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            reset()
            t0, c0 = time.perf_counter(), cpu_seconds()
            run()
            seen[name].append(time.perf_counter() - t0)
            if cpu is not None:
                cpu.setdefault(name, []).append(cpu_seconds() - c0)
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


def empty_tests(where: Path, count: int) -> Path:
    """A folder of ``count`` empty tests: what pytest itself costs for a run of that many, without tipc."""
    where.mkdir(parents=True)
    (where / "test_nothing.py").write_text(
        f"import pytest\n\n\n@pytest.mark.parametrize('i', range({count}))\ndef test_nothing(i):\n    pass\n"
    )
    return where


def run_bare(stages: list[Stage], repo: Path, env: dict[str, str]) -> None:
    """Each stage's argv into its log, in plan order: what the harness is measured against."""
    from tipc.proc.child import child_env

    for stage in stages:
        log = repo / stage.log
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "wb") as out:
            subprocess.run(
                stage.argv, cwd=repo, env=child_env(stage.env, env), stdout=out, stderr=subprocess.STDOUT, check=True
            )


def pytest_argv(ini: Path, *args: str, plugins: bool) -> list[str]:
    """``python -m pytest`` as a user runs it; without ``plugins``, tipc's named since none autoloads."""
    own = [] if plugins else ["-p", "tipc.plugin.hooks"] if args and args[0] == str(ROOT / "tipc") else []
    return [sys.executable, "-m", "pytest", *own, "-c", str(ini), "-q", "-p", "no:cacheprovider", *args]


def plugins_env(env: dict[str, str], plugins: bool) -> dict[str, str]:
    base = {k: v for k, v in env.items() if k != AUTOLOAD}
    return base if plugins else {**base, AUTOLOAD: "1"}


def env_for_contenders() -> dict[str, str]:
    """The environment every contender runs in."""
    # tipc's bytecode, as an install leaves it: under PYTHONDONTWRITEBYTECODE every start would
    # otherwise compile all of tipc (~60 ms) while the bash pays nothing of the kind.
    compileall.compile_dir(ROOT / "tipc", quiet=1)
    bin_dir = str(Path(sys.executable).parent)
    # The configs say `python:python3`: every contender runs this interpreter's python3, and the
    # tipc of this checkout (not some other one an editable install points at).
    return {
        **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--paddleocr",
        default=os.environ.get("TIPC_PADDLEOCR"),
        metavar="DIR",
        help="a PaddleOCR checkout whose test_tipc/ bash to time beside tipc",
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        help="time make demo's run (real paddle training) against its stages bare instead",
    )
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tipc.config.modes import Mode
    from tipc.dialects.paddleocr.config import load_config
    from tipc.dialects.paddleocr.plan import build_plan
    from tipc.plan import PlanOptions

    if args.demo:
        print_demo(*time_demo(args.repeat, env_for_contenders()))
        return 0
    paddleocr, skipped = paddleocr_checkout(args.paddleocr)
    env = env_for_contenders()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        repo, config, small = make_repo(work, paddleocr)

        def stages_of(path: Path) -> list[Stage]:
            options = PlanOptions(mode=Mode(MODE), repo=str(repo), python=sys.executable)
            return list(build_plan(load_config(str(path)), options).stages())

        stages, small_stages = stages_of(config), stages_of(small)
        output = repo / "test_tipc" / "output"
        ini = work / "pytest.ini"

        def reset() -> None:
            # Every round alike: reports kept from round to round would have each report read
            # one more earlier run than the round before, and the best round be the first.
            shutil.rmtree(output, ignore_errors=True)
            shutil.rmtree(work / "reports", ignore_errors=True)

        def bash() -> None:
            subprocess.run(
                ["bash", "test_tipc/test_train_inference_python.sh", str(config.relative_to(repo)), MODE],
                cwd=repo,
                env=env,
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )

        def common(path: Path) -> list[str]:
            return ["--config", str(path), "--mode", MODE, "--python", sys.executable, "--report-dir",
                    str(work / "reports")]  # fmt: skip

        def tipc_args(path: Path) -> list[str]:
            spelt = (f"--tipc-{a[2:]}" if a in ("--python", "--report-dir") else a for a in common(path))
            return [str(ROOT / "tipc"), *spelt]

        sizes = (len(stages), len(small_stages))
        empty = {size: empty_tests(work / f"empty{size}", size) for size in sizes}

        def pytest_tipc(plugins: bool, path: Path = config) -> Callable[[], object]:
            argv, run_env = pytest_argv(ini, *tipc_args(path), plugins=plugins), plugins_env(env, plugins)
            return lambda: subprocess.run(argv, cwd=repo, env=run_env, check=True, stdout=subprocess.DEVNULL)

        def pytest_alone(plugins: bool, size: int = sizes[0]) -> Callable[[], object]:  # pytest's own cost alone
            argv, run_env = pytest_argv(ini, str(empty[size]), plugins=plugins), plugins_env(env, plugins)
            return lambda: subprocess.run(argv, cwd=work, env=run_env, check=False, stdout=subprocess.DEVNULL)

        def tipc_run(path: Path = config) -> Callable[[], object]:
            argv = [sys.executable, "-m", "tipc", "run", *common(path)]
            return lambda: subprocess.run(
                argv, cwd=repo, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )

        runs = {
            "bare": lambda: run_bare(stages, repo, env),
            **({"bash": bash} if paddleocr else {}),
            "pytest tipc": pytest_tipc(plugins=True),
            "tipc run": tipc_run(),
            "pytest alone": pytest_alone(plugins=True),
            "pytest tipc, no plugins": pytest_tipc(plugins=False),
            "pytest alone, no plugins": pytest_alone(plugins=False),
            f"bare{SMALL_SUFFIX}": lambda: run_bare(small_stages, repo, env),
            f"pytest tipc{SMALL_SUFFIX}": pytest_tipc(plugins=True, path=small),
            f"tipc run{SMALL_SUFFIX}": tipc_run(small),
            f"pytest tipc, no plugins{SMALL_SUFFIX}": pytest_tipc(plugins=False, path=small),
            f"pytest alone{SMALL_SUFFIX}": pytest_alone(plugins=True, size=sizes[1]),
            f"pytest alone, no plugins{SMALL_SUFFIX}": pytest_alone(plugins=False, size=sizes[1]),
        }
        cpu: dict[str, list[float]] = {}
        seen = timings(args.repeat, runs, reset, cpu)

    best = {name: values[0] for name, values in seen.items()}
    print_figures(best, sizes, args.repeat, skipped)
    print_medians({name: statistics.median(values) for name, values in seen.items()})
    print_cpu({name: min(values) for name, values in cpu.items()}, sizes)
    return 0


def time_demo(repeat: int, env: dict[str, str]) -> tuple[dict[str, list[float]], int]:
    """``make demo``'s ``pytest tipc`` (its data prepared once, as ``make demo`` prepares it) and its
    stages bare, ``repeat`` interleaved rounds each from a clean output folder."""
    from tipc.config.modes import Mode
    from tipc.dialects.paddleocr.config import load_config
    from tipc.dialects.paddleocr.plan import build_plan
    from tipc.plan import PlanOptions

    config = str(DEMO_CONFIG.relative_to(ROOT / "test_configs"))
    subprocess.run([sys.executable, "-m", "tipc", "prepare", "--config", config, "--mode", MODE_DEMO], cwd=ROOT,
                   env=env, check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    options = PlanOptions(mode=Mode(MODE_DEMO), repo=str(DEMO_REPO), python="python3")
    plan = build_plan(load_config(str(DEMO_CONFIG)), options)
    reports = Path(tempfile.mkdtemp()) / "reports"
    stages, cwd = list(plan.stages()), Path(plan.cwd).resolve()
    argv = [sys.executable, "-m", "pytest", "tipc", "--config", config, "--mode", MODE_DEMO, "-p", "no:cacheprovider",
            "--tipc-report-dir", str(reports)]  # fmt: skip

    empty = empty_tests(reports.parent / "empty", len(stages))
    # pytest's own part as the demo's pytest starts: the same rootdir and ini, as many empty tests as stages.
    alone = [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(ROOT), "-p",
             "no:cacheprovider", str(empty)]  # fmt: skip

    def reset() -> None:
        shutil.rmtree(cwd / plan.output_dir, ignore_errors=True)
        shutil.rmtree(reports, ignore_errors=True)

    def pytest_run(argv: list[str]) -> Callable[[], object]:
        return lambda: subprocess.run(argv, cwd=ROOT, env=plugins_env(env, True), check=True, stdout=subprocess.DEVNULL)

    runs = {"bare": lambda: run_bare(stages, cwd, env), "pytest tipc": pytest_run(argv)}
    runs["pytest alone"] = pytest_run(alone)
    try:
        return timings(repeat, runs, reset), len(stages)
    finally:
        reset()
        shutil.rmtree(reports.parent, ignore_errors=True)


def split_cost(
    best: Mapping[str, float], front: str, sizes: tuple[int, int], base: str | None = "bare"
) -> tuple[float, float]:
    """``front``'s cost above ``base`` (bare; None: its whole time), split into what each stage costs and
    what a run costs once (ms): the two plans differ only in their number of stages, so the difference of
    their costs above bare is that many stages' worth."""
    n, n_small = sizes
    above = best[front] - (best[base] if base else 0.0)
    above_small = best[f"{front}{SMALL_SUFFIX}"] - (best[f"{base}{SMALL_SUFFIX}"] if base else 0.0)
    per_stage = (above - above_small) / (n - n_small)
    return per_stage * 1000, (above - per_stage * n) * 1000


def print_figures(best: dict[str, float], sizes: tuple[int, int], repeat: int, skipped: str) -> None:
    """The contenders side by side, each front's cost split into per stage and once per run, the verdicts."""
    n, n_small = sizes
    t_bare = best["bare"]
    print(f"stages: {n} (fake target: short python processes that print as real ones do); best of {repeat} rounds")
    for name, seconds in best.items():
        if name.startswith("pytest alone") or name.endswith(SMALL_SUFFIX):
            continue
        above = "" if name == "bare" else f", {(seconds - t_bare) / n * 1000:+.1f} ms/stage above bare"
        print(f"  {name:<23} {seconds:6.3f} s ({seconds / n * 1000:5.1f} ms/stage{above})")
    if "bash" not in best:
        print(f"  {'bash':<23} skipped: {skipped}")
    split = {front: split_cost(best, front, sizes) for front in FRONTS}
    print(f"each front's cost above bare, split by a plan of {n_small} stages beside it:")
    for front, alone in FRONTS.items():
        per_stage, once = split[front]
        parts = ""
        if alone is not None:  # pytest's own part (as many empty tests, no tipc), the rest tipc's
            own_stage, own_once = split_cost(best, alone, sizes, base=None)
            parts = (f" = pytest's own {own_stage:.1f} ms per test + {own_once:.0f} ms once, and tipc's "
                     f"{per_stage - own_stage:.1f} ms per stage + {once - own_once:.0f} ms once")  # fmt: skip
        print(f"  {front:<23} {per_stage:4.1f} ms per stage + {once:4.0f} ms once per run{parts}")
    theirs = (best["pytest alone"] - best["pytest alone, no plugins"]) * 1000
    print(f"  (pytest's own: pytest running {n} empty tests, no tipc: {best['pytest alone'] * 1000:.0f} ms with the "
          f"installed plugins, {theirs:.0f} ms of it theirs)")  # fmt: skip
    verdicts = [
        f"{front}: {per_stage:.1f} ms per stage above bare (target <= {TARGET_MS:g}: "
        f"{'met' if per_stage <= TARGET_MS else 'NOT met'})"
        for front, (per_stage, _) in split.items()
        if front != "pytest tipc, no plugins"
    ]
    if "bash" in best:
        ratio = best["pytest tipc"] / best["bash"]
        floor = (t_bare + best["pytest alone"]) / best["bash"]
        bare_ratio = best["pytest tipc, no plugins"] / best["bash"]
        met = "met" if ratio <= TARGET_RATIO else "NOT met"
        verdicts.append(
            f"pytest tipc / bash = {ratio:.2f} (target <= {TARGET_RATIO:.2f}: {met}); pytest's own part "
            f"alone makes it {floor:.2f}; without third-party plugins: {bare_ratio:.2f}"
        )
    print("\n".join(verdicts))


def print_medians(median: dict[str, float]) -> None:
    """The typical round beside the best one: on a shared machine the best rounds of two contenders
    may fall in different quiet spells."""
    ratio = f"; pytest tipc / bash = {median['pytest tipc'] / median['bash']:.2f}" if "bash" in median else ""
    print("medians: " + ", ".join(f"{name} {seconds:.3f} s" for name, seconds in median.items()) + ratio)


def print_cpu(least: dict[str, float], sizes: tuple[int, int]) -> None:
    """CPU time beside wall time: what the harness itself spends, which load from other jobs hardly moves."""
    split = ", ".join(
        f"{front} {per_stage:.1f} ms per stage + {once:.0f} ms once"
        for front in FRONTS
        for per_stage, once in [split_cost(least, front, sizes)]
    )
    print(
        f"CPU, every process of a round together, least of the rounds, above bare ({least['bare']:.3f} s): {split}; "
        f"pytest alone {least['pytest alone'] * 1000:.0f} ms, without plugins "
        f"{least['pytest alone, no plugins'] * 1000:.0f} ms"
    )


def print_demo(seen: dict[str, list[float]], n: int) -> None:
    best = {name: values[0] for name, values in seen.items()}
    median = {name: statistics.median(values) for name, values in seen.items()}
    for label, figures in (("best", best), ("median", median)):
        above = figures["pytest tipc"] - figures["bare"]
        share, start = above / figures["pytest tipc"], figures["pytest alone"]
        met = "met" if share <= TARGET_DEMO else "NOT met"
        print(
            f"make demo ({n} stage processes, real paddle training), {label} of {len(seen['bare'])}: pytest tipc "
            f"{figures['pytest tipc']:.2f} s, its stages bare {figures['bare']:.2f} s: the harness "
            f"{above * 1000:.0f} ms = {share:.1%} of the demo's wall time (target <= {TARGET_DEMO:.0%}: {met}) = "
            f"pytest's own part {start * 1000:.0f} ms ({start / figures['pytest tipc']:.1%}) + tipc "
            f"{(above - start) * 1000:.0f} ms ({(above - start) / figures['pytest tipc']:.1%})"
        )


if __name__ == "__main__":
    sys.exit(main())
