"""``pytest tipc`` with the scheduler (``--tipc-jobs``) and with xdist workers pinned to their GPU slots."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import tipc
from tipc.plan.env import CUDA_VISIBLE_DEVICES
from tipc.results.folder import read_records
from tipc.results.records import StageRecord, Status

from .plans import CONFIG_DIR, MODE, gpu_matrix

TIPC_DIR = str(Path(tipc.__file__).resolve().parent)
CVD = CUDA_VISIBLE_DEVICES


def run(pytester: pytest.Pytester, repo: Path, model: str, entries: str, *extra: str) -> pytest.RunResult:
    config = repo / CONFIG_DIR / f"{model}.txt"
    config.write_text(gpu_matrix(model, entries, "fp32|amp"))
    return pytester.runpytest(
        TIPC_DIR,
        "-c",
        str(pytester.path / "tox.ini"),
        "--config",
        str(config),
        "--mode",
        MODE,
        "--tipc-python",
        sys.executable,
        "--tipc-device",
        "gpu",
        "--tipc-no-report",
        "-p",
        "no:cacheprovider",
        *extra,
    )


def records(repo: Path, model: str) -> list[StageRecord]:
    return read_records(repo / "test_tipc" / "output" / model / MODE / "results.jsonl")


def overlap(a: StageRecord, b: StageRecord) -> bool:
    return a.start < b.start + b.duration and b.start < a.start + a.duration


def test_jobs_under_pytest_runs_chains_side_by_side_and_reports_each_item(pytester, pytester_repo, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE", "train:sleep=0.5,infer:gpu")
    result = run(
        pytester,
        pytester_repo,
        "pj",
        "0|1",
        "--tipc-jobs",
        "auto",
        "--tipc-mem-per-chain",
        "1M",
        "--tipc-gpus-available",
        "4,5,6,7",
    )
    result.assert_outcomes(passed=20)
    rs = records(pytester_repo, "pj")
    trains = [r for r in rs if r.kind == "train"]
    assert all(overlap(a, b) for i, a in enumerate(trains) for b in trains[i + 1 :])  # all four at once
    assert sorted(r.env[CVD] for r in trains) == ["4", "5", "6", "7"]


def test_xdist_workers_pin_their_chains_to_their_slot_and_keep_cpu_benchmarks_apart(
    pytester, pytester_repo, monkeypatch
):
    monkeypatch.setenv("TIPC_FAKE", "train:sleep=0.3,infer:gpu")
    result = run(
        pytester, pytester_repo, "px", "0|1", "-n", "2", "--dist", "loadscope", "--tipc-gpus-available", "0,1,2,3"
    )
    result.assert_outcomes(passed=20)
    rs = records(pytester_repo, "px")
    assert {r.status for r in rs} == {Status.PASSED}
    on_gpu = [r for r in rs if r.env[CVD]]  # CPU inference cases see none
    assert {r.env[CVD] for r in on_gpu} == {"0", "2"}  # gw0 holds 0,1 and gw1 2,3: one-GPU chains take the first
    assert len(on_gpu) == 16
    by_chain = {}
    for r in on_gpu:
        by_chain.setdefault(r.chain, set()).add(r.env[CVD])
    assert all(len(devices) == 1 for devices in by_chain.values())
    cpu_bench = [r for r in rs if r.infer and r.infer["device"] == "cpu"]  # the only stages on the CPU here
    assert [(a.id, b.id) for a in cpu_bench for b in cpu_bench if a is not b and overlap(a, b)] == []


def test_more_xdist_workers_than_gpus_block_gpu_chains_with_the_fix(pytester, pytester_repo):
    result = run(pytester, pytester_repo, "py3", "0", "-n", "3", "--dist", "loadscope", "--tipc-gpus-available", "0,1")
    result.assert_outcomes(skipped=10)  # two chains, five stages each: blocked, not run on a GPU they do not hold
    reasons = {r.reason for r in records(pytester_repo, "py3")}
    assert len(reasons) <= 3 and all(
        "needs 1 GPU(s) and xdist worker gw" in r and "holds 0 (none): run fewer workers (-n)" in r for r in reasons
    )


def test_jobs_and_xdist_are_one_or_the_other(pytester, pytester_repo):
    result = run(pytester, pytester_repo, "pe", "0", "--tipc-jobs", "2", "-n", "2", "--dist", "loadscope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--tipc-jobs/--tipc-mem-per-chain run chains side by side in this process*use one of them*"]
    )
