"""Using the hardware and scaling out, measured side by side in one run:

* gpu:    a simulated 8-GPU node (``--gpus-available 0,…,7``), the fake target, 40 chains whose
          stages sleep (5 configs × 4 GPU entries × 2 autocasts): ``tipc run`` serial, then
          ``--jobs auto`` (memory from the serial run's peaks); the wall-time ratio (target >= 6)
          and the pairs of stages of different chains that overlapped on one device, from what
          the stages' processes printed of their ``CUDA_VISIBLE_DEVICES`` (target 0);
* shards: 80 configs (1 to 4 chains each) with recorded durations (seeded lognormal, as a
          nightly's spread of minutes), split by ``--shard K/8``: the largest part's recorded
          duration over the mean (target <= 1.10), each chain in exactly one part;
* cpu:    the reference target's CPU chains (tinyrec normal, amp and nproc2 configs,
          ``lite_train_lite_infer``, real paddle training) serial, then ``--jobs auto`` with the
          memory budget from the serial run's peaks: the wall-time ratio (faster where it fits)
          and that nothing ran out of memory (every stage passed; the kernel's OOM kill count
          unchanged). About 1.5 minutes on 2 cores; ``--skip-cpu`` leaves it out.

Exit 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAKE = ROOT / "tests" / "fake_target"
MODE = "lite_train_lite_infer"
GPUS = ",".join(str(i) for i in range(8))
SLEEPS = "train:sleep=2,eval:sleep=0.5,export:sleep=0.5"  # seconds: long beside a process start on 2 cores
SHOW = "train:devices,eval:devices,export:devices,infer:devices,infer:gpu"
TINYREC = [
    f"tinyrec/train_linux_cpu_{name}_infer_python_linux_cpu.txt"
    for name in ("normal_normal", "normal_amp", "nproc2_normal")
]
TARGET_SPEEDUP, TARGET_SPREAD = 6.0, 1.10

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(FAKE))  # variants: the fake target's configs, as the tests make them

from variants import CONFIG_DIR, gpu_matrix  # noqa: E402


def tipc_run(args: Sequence[str], env: dict[str, str]) -> float:
    """Wall seconds of one ``tipc run`` in a fresh process."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "tipc", "run", "--mode", MODE, "--no-report", *args],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def records(folders: Sequence[Path]) -> list:
    from tipc.results.folder import read_records

    return [r for folder in folders for r in read_records(folder / "results.jsonl")]


def device_clashes(recs: list) -> tuple[int, int]:
    """(stages that printed their devices, pairs of different chains' stages that overlapped on one)."""
    seen = []
    for r in recs:
        line = next(line for line in Path(r.log).read_text().splitlines() if line.startswith("fake devices: "))
        _, _, ids, start, end = line.split()
        seen.append(((r.model, r.chain), set(ids.split(",")), float(start), float(end)))
    clashes = sum(
        1
        for i, (chain_a, ids_a, s_a, e_a) in enumerate(seen)
        for chain_b, ids_b, s_b, e_b in seen[i + 1 :]
        if chain_a != chain_b and ids_a & ids_b and s_a < e_b and s_b < e_a
    )
    return len(seen), clashes


def bench_gpu(work: Path) -> tuple[str, bool]:
    repo = work / "fake_target"
    shutil.copytree(FAKE, repo, ignore=shutil.ignore_patterns("test_tipc", "__pycache__"))
    configs = []
    for k in range(5):
        path = repo / CONFIG_DIR / f"g{k}.txt"
        path.write_text(gpu_matrix(f"g{k}", "0|1|2|3", "fp32|amp"))
        configs.append(path)
    args = [a for c in configs for a in ("--config", str(c))]
    args += ["--python", sys.executable, "--device", "gpu", "--gpus-available", GPUS]
    env = {**os.environ, "TIPC_FAKE": f"{SLEEPS},{SHOW}"}
    serial = tipc_run(args, env)
    scheduled = tipc_run([*args, "--jobs", "auto"], env)
    folders = [repo / "test_tipc" / "output" / f"g{k}" / MODE for k in range(5)]
    recs = records(folders)
    stages, clashes = device_clashes(recs)
    chains = len({(r.model, r.chain) for r in recs})
    span = max(r.start + r.duration for r in recs) - min(r.start for r in recs)
    busy = sum(r.duration for r in recs if r.env.get("CUDA_VISIBLE_DEVICES")) / (8 * span)
    ratio = serial / scheduled
    ok = ratio >= TARGET_SPEEDUP and clashes == 0 and all(r.status.value == "passed" for r in recs)
    return (
        f"gpu     {chains} chains, {stages} stages on 8 simulated GPUs: serial {serial:5.1f} s, --jobs auto "
        f"{scheduled:5.1f} s: {ratio:.1f}x (target >= {TARGET_SPEEDUP:g}), GPUs busy {busy:.0%} of the "
        f"stages' span; overlapping device assignments {clashes} (target 0)",
        ok,
    )


def bench_shards(work: Path) -> tuple[str, bool]:
    from tipc.dialects.paddleocr.config import load_config
    from tipc.dialects.paddleocr.plan import build_plan
    from tipc.plan import PlanOptions
    from tipc.results.folder import ResultsDir
    from tipc.results.records import RunInfo, StageRecord, Status
    from tipc.schedule.policy import Shard
    from tipc.schedule.shard import Sharding, results_folder

    rng = random.Random(13)
    repo = work / "matrix"
    shutil.copytree(FAKE, repo, ignore=shutil.ignore_patterns("test_tipc", "__pycache__"))
    configs = []
    for k in range(80):
        entries = "|".join(str(i) for i in range(rng.randint(1, 4)))
        path = repo / CONFIG_DIR / f"m{k:02}.txt"
        path.write_text(gpu_matrix(f"m{k:02}", entries))
        configs.append(path)

    def build(path: Path):
        options = PlanOptions(MODE, repo=str(repo), python=sys.executable, device="gpu")
        return build_plan(load_config(str(path)), options)

    seconds = {}
    for path in configs:  # one earlier run per config: minutes of training, seconds for the rest
        plan = build(path)
        folder = ResultsDir(results_folder(plan))
        folder.begin(RunInfo(model=plan.model, mode=MODE, config=plan.config_path, run_id="20260101T000000Z-0"))
        for chain in plan.chains:
            train = rng.lognormvariate(6.0, 0.8)
            for stage in chain.stages:
                duration = train if stage.kind.value == "train" else rng.uniform(5.0, 40.0)
                seconds[path.name, chain.id] = seconds.get((path.name, chain.id), 0.0) + duration
                folder.append_record(
                    StageRecord(
                        id=stage.id,
                        kind=stage.kind.value,
                        chain=chain.id,
                        status=Status.PASSED,
                        config=plan.config_path,
                        duration=duration,
                        start=1.0,
                    )
                )
    parts = []
    for k in range(1, 9):
        sharding = Sharding(Shard(k, 8), "bench", configs, build)
        parts.append([(p.name, c.id) for p in configs for c in sharding.restrict(build(p)).chains])
    every = [unit for part in parts for unit in part]
    whole = len(every) == len(set(every)) == len(seconds)
    loads = [sum(seconds[unit] for unit in part) for part in parts]
    spread = max(loads) / (sum(loads) / len(loads))
    return (
        f"shards  80 configs, {len(seconds)} chains, {sum(loads) / 3600:.1f} h recorded, 8 shards: largest "
        f"{max(loads) / 60:.1f} min over mean {sum(loads) / 8 / 60:.1f} min = {spread:.3f} (target <= "
        f"{TARGET_SPREAD:.2f}); every chain in exactly one shard: {'yes' if whole else 'NO'}",
        spread <= TARGET_SPREAD and whole,
    )


def bench_cpu(work: Path) -> tuple[str, bool]:
    from tipc.proc.child import oom_kills

    target = work / "tinyrec"
    shutil.copytree(
        ROOT / "examples" / "tinyrec",
        target,
        ignore=shutil.ignore_patterns("train_data", "inference", "output", "test_tipc", "log", "__pycache__"),
    )
    # The configs say `python:python3`: the interpreter running this benchmark (with paddle) is the one.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for config in TINYREC:
        subprocess.run(
            [sys.executable, "-m", "tipc", "prepare", "--config", config, "--mode", MODE, "--repo", str(target)],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    args = [a for c in TINYREC for a in ("--config", c)] + ["--repo", str(target)]
    kills = oom_kills()
    serial = tipc_run(args, env)
    peaks = records([target / "test_tipc" / "output" / "tinyrec" / MODE])
    scheduled = tipc_run([*args, "--jobs", "auto"], env)
    recs = records([target / "test_tipc" / "output" / "tinyrec" / MODE])
    passed = all(r.status.value == "passed" for r in recs)
    no_oom = kills == oom_kills() and not any("SIGKILL" in r.reason for r in recs)
    ratio = serial / scheduled
    top = max(r.peak_rss_mb or 0 for r in peaks)
    return (
        f"cpu     tinyrec, {len({r.chain for r in recs})} chains, {len(recs)} stages of real paddle on "
        f"{os.cpu_count()} cores: serial {serial:5.1f} s, --jobs auto {scheduled:5.1f} s: {ratio:.2f}x; "
        f"largest stage peak {top:.0f} MB; all passed: {'yes' if passed else 'NO'}; out of memory: "
        f"{'none' if no_oom else 'YES'}",
        passed and no_oom and ratio > 1.0,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-cpu", action="store_true", help="leave out the real-training tinyrec measurement")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        results.append(bench_gpu(work))
        results.append(bench_shards(work))
        if not args.skip_cpu:
            results.append(bench_cpu(work))
    for line, ok in results:
        print(f"{line}  [{'met' if ok else 'NOT met'}]")
    return 0 if all(ok for _, ok in results) else 1


if __name__ == "__main__":
    sys.exit(main())
