"""``tipc run --jobs`` on the fake target, real processes: devices, benchmarks alone, memory, refusals, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tipc.cli.main import main
from tipc.plan.env import CUDA_VISIBLE_DEVICES
from tipc.results.folder import ResultsDir, read_records
from tipc.results.records import StageRecord, Status

from .plans import CONFIG_DIR, MODE, gpu_matrix, variant

SHOW = "train:devices,eval:devices,export:devices,infer:devices,infer:gpu"


def write(repo: Path, name: str, text: str) -> Path:
    path = repo / CONFIG_DIR / f"{name}.txt"
    path.write_text(text)
    return path


def tipc_run(configs: list[Path], *extra: str) -> int:
    args = [a for c in configs for a in ("--config", str(c))]
    return main(["run", *args, "--mode", MODE, "--python", sys.executable, "--no-report", *extra])


def records(repo: Path, model: str) -> list[StageRecord]:
    return read_records(repo / "test_tipc" / "output" / model / MODE / "results.jsonl")


def overlap(a: StageRecord, b: StageRecord) -> bool:
    return a.start < b.start + b.duration and b.start < a.start + a.duration


def most_at_once(rs: list[StageRecord]) -> int:
    return max(sum(1 for r in rs if r.start <= t.start < r.start + r.duration) for t in rs)


def seen_devices(record: StageRecord) -> str:
    """What the stage's process was given, as the fake target printed it."""
    line = next(line for line in Path(record.log).read_text().splitlines() if line.startswith("fake devices: "))
    return line.split()[2]


@pytest.fixture
def gpu_run(fake_repo, monkeypatch):
    """Two models × (GPU 0 | GPU 1) × (fp32 | amp): 8 one-GPU chains on a simulated 4-GPU node."""
    monkeypatch.setenv("TIPC_FAKE", f"train:sleep=0.4,{SHOW}")
    configs = [write(fake_repo, m, gpu_matrix(m, "0|1", "fp32|amp")) for m in ("ma", "mb")]
    code = tipc_run(
        configs, "--device", "gpu", "--gpus-available", "0,1,2,3", "--jobs", "auto", "--mem-per-chain", "1M"
    )
    return code, records(fake_repo, "ma") + records(fake_repo, "mb")


def test_chains_get_disjoint_devices_through_their_childrens_environment(gpu_run):
    code, rs = gpu_run
    assert code == 0 and len(rs) == 8 * 5 and all(r.status is Status.PASSED for r in rs)
    on_gpu = [r for r in rs if not (r.infer and r.infer["device"] == "cpu")]
    for r in on_gpu:
        assert seen_devices(r) == r.env[CUDA_VISIBLE_DEVICES] in ("0", "1", "2", "3")
    assert {seen_devices(r) for r in rs if r not in on_gpu} == {"unset"}  # CPU inference sees no GPU
    by_chain = {}
    for r in on_gpu:
        by_chain.setdefault((r.model, r.chain), set()).add(r.env[CUDA_VISIBLE_DEVICES])
    assert all(len(devices) == 1 for devices in by_chain.values())  # a chain stays on its device
    clashes = [
        (a.id, b.id)
        for i, a in enumerate(on_gpu)
        for b in on_gpu[i + 1 :]
        if (a.model, a.chain) != (b.model, b.chain)
        and overlap(a, b)
        and a.env[CUDA_VISIBLE_DEVICES] == b.env[CUDA_VISIBLE_DEVICES]
    ]
    assert clashes == []
    trains = [r for r in rs if r.kind == "train"]
    assert most_at_once(trains) == 4  # four GPUs, four trainings at a time


def test_cpu_benchmarks_have_the_cpu_alone_gpu_stages_go_on_beside_them(gpu_run):
    _, rs = gpu_run
    on_cpu = [r for r in rs if r.infer and r.infer["device"] == "cpu"]  # every other stage runs on a GPU
    assert len(on_cpu) == 8 and all("--benchmark=True" in r.argv for r in on_cpu)
    assert [(a.id, b.id) for a in on_cpu for b in on_cpu if a is not b and overlap(a, b)] == []
    gpu_bench = [r for r in rs if r.infer and r.infer["device"] == "gpu"]
    assert any(overlap(a, b) for a in gpu_bench for b in rs if (a.model, a.chain) != (b.model, b.chain))


@pytest.mark.parametrize(
    ("budget_mb", "per_chain", "at_most"),
    [(100.0, "40M", 2), (100.0, "30M", 3), (100.0, "200M", 1)],
    ids=["two-fit", "three-fit", "one-at-a-time"],
)
def test_memory_bounds_how_many_stages_run_at_once(fake_repo, monkeypatch, budget_mb, per_chain, at_most):
    monkeypatch.setattr("tipc.schedule.runner.available_mb", lambda: budget_mb)
    monkeypatch.setattr("tipc.schedule.runner.host_cores", lambda: 8)
    monkeypatch.setenv("TIPC_FAKE", "train:sleep=0.4")
    config = write(
        fake_repo,
        "cpu6",
        variant({"model_name": "cpu6", "Global.auto_cast": "fp32|amp|o1|o2|o3|o4", "--benchmark": "False"}),
    )
    assert tipc_run([config], "--jobs", "auto", "--mem-per-chain", per_chain) == 0
    rs = records(fake_repo, "cpu6")
    assert len(rs) == 6 * 5 and most_at_once(rs) == at_most


def test_stages_never_measured_run_alone_under_auto_until_a_run_measured_them(fake_repo, monkeypatch):
    monkeypatch.setattr("tipc.schedule.runner.available_mb", lambda: 10_000.0)
    monkeypatch.setattr("tipc.schedule.runner.host_cores", lambda: 2)
    monkeypatch.setenv("TIPC_FAKE", "train:sleep=0.3")
    config = write(
        fake_repo, "cpu3", variant({"model_name": "cpu3", "Global.auto_cast": "fp32|amp|o1", "--benchmark": "False"})
    )
    assert tipc_run([config], "--jobs", "auto") == 0
    first = records(fake_repo, "cpu3")
    assert most_at_once(first) == 1 and all(r.peak_rss_mb for r in first)
    # the stage's figure (its tree's) and its root process's own, kept beside it
    assert all(r.process_peak_rss_mb and r.peak_rss_mb >= r.process_peak_rss_mb for r in first)
    assert tipc_run([config], "--jobs", "auto") == 0
    assert most_at_once(records(fake_repo, "cpu3")) == 2  # the measured peaks fit: two cores, two at once


def test_a_chain_needing_more_gpus_than_the_node_has_is_blocked_not_run(fake_repo, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE", "infer:gpu")
    config = write(fake_repo, "wide", gpu_matrix("wide", "0|0,1,2"))
    # The selected chain did not run, and no failure upstream says why: the run does not pass.
    assert tipc_run([config], "--device", "gpu", "--gpus-available", "0,1", "--jobs", "2", "--mem-per-chain", "1M") == 1
    assert {r.status for r in records(fake_repo, "wide") if r.chain == "norm_train-gpus_0-fp32"} == {Status.PASSED}
    wide = [r for r in records(fake_repo, "wide") if r.chain == "norm_train-gpus_0,1,2-fp32"]
    assert wide and all(r.status is Status.BLOCKED for r in wide)
    assert wide[0].reason == "blocked: chain norm_train-gpus_0,1,2-fp32 needs 3 GPU(s) and this node has 2 (0,1)"


def test_ctrl_c_interrupts_every_running_chain_and_keeps_the_results(fake_repo):
    config = write(fake_repo, "slow", variant({"model_name": "slow", "Global.auto_cast": "fp32|amp"}))
    env = {**os.environ, "TIPC_FAKE": "train:sleep=60"}
    args = [
        "run",
        "--config",
        str(config),
        "--mode",
        MODE,
        "--python",
        sys.executable,
        "--no-report",
        "--jobs",
        "2",
        "--mem-per-chain",
        "1M",
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "tipc.cli.main", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    out = fake_repo / "test_tipc" / "output" / "slow" / MODE
    deadline = time.monotonic() + 30
    while len(ResultsDir(out).running_stages()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    # Both trainings must be running when the Ctrl-C comes, or this test says nothing about them.
    assert len(ResultsDir(out).running_stages()) == 2, "the two chains' trainings did not start within 30 s"
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    assert proc.wait(30) == 130 and time.monotonic() - started < 10
    trains = [r for r in records(fake_repo, "slow") if r.kind == "train"]
    assert len(trains) == 2 and all(r.reason == "interrupted: the run was stopped" for r in trains)
    assert json.loads((out / "run.json").read_text())["ended"] is True


def test_a_chain_gives_its_gpu_back_before_its_cpu_inference(fake_repo, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE", "infer:sleep=0.3,infer:gpu")
    config = write(fake_repo, "one", gpu_matrix("one", "0", "fp32|amp"))
    options = ("--device", "gpu", "--gpus-available", "3", "--jobs", "auto", "--mem-per-chain", "1M")
    assert tipc_run([config], *options) == 0
    rs = records(fake_repo, "one")
    first, second = sorted({r.chain for r in rs}, key=lambda c: min(r.start for r in rs if r.chain == c))
    cpu_case = next(r for r in rs if r.chain == first and r.infer and r.infer["device"] == "cpu")
    train = next(r for r in rs if r.chain == second and r.kind == "train")
    assert cpu_case.env[CUDA_VISIBLE_DEVICES] == "" and train.env[CUDA_VISIBLE_DEVICES] == "3"
    assert overlap(cpu_case, train)  # the one GPU went on to the next chain's training


def test_a_ctrl_c_as_the_chains_start_still_records_them(fake_repo, monkeypatch):
    """A Ctrl-C that comes the moment the scheduler's threads have started their stages, before anything
    else of the run: the stages are stopped and recorded, not left to die with the process unrecorded."""
    from tipc.schedule.runner import Scheduler

    config = write(fake_repo, "early", variant({"model_name": "early", "Global.auto_cast": "fp32|amp"}))
    monkeypatch.setenv("TIPC_FAKE", "train:sleep=60")
    out = fake_repo / "test_tipc" / "output" / "early" / MODE
    start = Scheduler.start

    def start_then_ctrl_c(self: Scheduler) -> None:
        start(self)
        deadline = time.monotonic() + 30
        while len(ResultsDir(out).running_stages()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        raise KeyboardInterrupt

    monkeypatch.setattr(Scheduler, "start", start_then_ctrl_c)
    assert tipc_run([config], "--jobs", "2", "--mem-per-chain", "1M") == 130
    trains = [r for r in records(fake_repo, "early") if r.kind == "train"]
    assert len(trains) == 2 and all(r.reason == "interrupted: the run was stopped" for r in trains)
