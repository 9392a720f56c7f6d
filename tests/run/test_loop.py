"""The core loop's promises, under the ways real runs end: gate → run → judge → record, a stage at a
time, each stage's record and legacy line written before the next stage starts, nothing left running.

Real processes on the fake target: a shared ``train.log``, a SIGKILL of the harness at random
moments, a live sink that raises, a stdout closed by ``head``.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.fake_target import CPU_CONFIG
from tests.support.processes import wait_for
from tipc.proc.executor import ProcessExecutor
from tipc.proc.tree import RUN_MARKER, marked
from tipc.results.records import Status
from tipc.run.plan_run import PlanRun, RunSettings

MODE = "lite_train_lite_infer"

# A trainer that appends its steps to the train.log it shares with the next one (benchmark_train's
# consecutive trains of one precision and card count), as ppocr's log handler does.
APPEND_STEPS = """
import os, sys
save, first, steps, loss = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
os.makedirs(save, exist_ok=True)
with open(os.path.join(save, "train.log"), "a") as log:
    for step in range(first, first + steps):
        log.write(f"epoch: [1/1], global_step: {step}, lr: 0.001, loss: {loss:.6f}, "
                  f"avg_samples: 4.0, ips: {100.0 + step:.5f} samples/s, eta: 0:00:01\\n")
open(os.path.join(save, "latest.pdparams"), "wb").write(b"w")
"""


def shared_log_plan(fake_plan):
    """Two trains of one chain that append to one ``S/train.log``: 100000 steps of loss 1 (long
    enough to read that a stage started as it exits would write meanwhile), then 21 of loss 99."""
    chain = fake_plan.chains[0]
    train = chain.stages[0]
    save = chain.save_dir

    def trainer(name: str, first: int, steps: int, loss: float):
        argv = (sys.executable, "-c", APPEND_STEPS, save, str(first), str(steps), str(loss))
        return replace(train, id=f"{chain.id}::{name}", name=name, argv=argv, log=f"{save}_{name}.log", requires=())

    stages = (trainer("profile", 1, 100_000, 1.0), trainer("speed", 100_001, 21, 99.0))
    return replace(fake_plan, chains=(replace(chain, stages=stages),))


def test_each_train_of_a_shared_log_keeps_its_own_figures(fake_plan):
    plan = shared_log_plan(fake_plan)
    run = PlanRun(plan, RunSettings(), ProcessExecutor(grace=0.2))
    run.begin()
    first, second = (run.run_stage(stage) for stage in plan.stages())
    run.end()
    assert (first.status, second.status) == (Status.PASSED, Status.PASSED)
    assert (first.metrics["steps"], first.metrics["loss"]) == (100_000, 1.0)
    assert (second.metrics["steps"], second.metrics["loss"]) == (21, 99.0)
    save = Path(run.cwd) / plan.chains[0].save_dir
    assert Path(f"{save}.log").read_text().count("global_step") == 21  # S.log: the last train's part, as the bash
    (offset,) = second.log_offsets.values()
    assert offset == (save / "train.log").read_bytes().index(b"epoch: [1/1], global_step: 100001,")


def test_a_live_sink_that_raises_costs_no_record_and_leaves_no_process(fake_plan):
    calls = []

    def closed(data: bytes) -> None:
        calls.append(data)
        raise BrokenPipeError(32, "Broken pipe")

    run = PlanRun(fake_plan, RunSettings(), ProcessExecutor(grace=0.2, live=closed))
    run.begin()
    records = [run.run_stage(stage) for stage in fake_plan.stages()]
    run.end()
    assert calls  # it was called, and raised
    assert [r.status for r in records] == [Status.PASSED] * 5
    assert len(run.results.records()) == 5
    assert len(run.results.legacy_log.read_text().splitlines()) == 5
    assert marked(RUN_MARKER, run.run_id) == {}


def _cli(repo: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "tipc", "run", "--config", str(repo / CPU_CONFIG), "--mode", MODE,
            "--python", sys.executable, *extra]  # fmt: skip


def _out(repo: Path) -> Path:
    return repo / "test_tipc" / "output" / "fake_rec" / MODE


def _ran_everything(repo: Path, reports: Path) -> None:
    """Every stage of the fake target's plan passed and was recorded, the run ended and was reported."""
    out = _out(repo)
    info = json.loads((out / "run.json").read_text())
    assert info["ended"]
    assert [json.loads(line)["status"] for line in (out / "results.jsonl").read_text().splitlines()] == ["passed"] * 5
    assert len((out / "results_python.log").read_text().splitlines()) == 5
    assert list(reports.rglob("index.html"))
    assert marked(RUN_MARKER, info["run_id"]) == {}


@pytest.mark.parametrize("live", [["--live"], []], ids=["live", "status-lines"])
def test_tipc_run_into_head_runs_records_and_reports_everything(fake_repo, tmp_path, live):
    """``tipc run [--live] | head -1``: the reader leaves after a line; the run goes on unechoed."""
    harness = subprocess.Popen(
        _cli(fake_repo, *live, "--report-dir", str(tmp_path / "reports")),
        cwd=fake_repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert harness.stdout is not None and harness.stderr is not None
    harness.stdout.readline()
    harness.stdout.close()  # what head does after its line
    err = harness.stderr.read().decode()
    harness.stderr.close()
    assert harness.wait(120) == 0, err
    assert "tipc: stdout was closed before the run ended" in err
    _ran_everything(fake_repo, tmp_path / "reports")


def test_tipc_run_with_stdout_closed_from_the_start_runs_everything(fake_repo, tmp_path):
    """``tipc run >&-``: what would be printed is dropped; the run, its records and report are whole."""
    argv = ["sh", "-c", 'exec "$@" >&-', "sh", *_cli(fake_repo, "--report-dir", str(tmp_path / "reports"))]
    done = subprocess.run(argv, cwd=fake_repo, stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    _ran_everything(fake_repo, tmp_path / "reports")


@pytest.mark.parametrize("until", ["", "PASSED"], ids=["during-its-start", "after-the-first-stage"])
def test_pytest_tipc_into_head_ends_the_run_and_loses_no_record(fake_repo, tmp_path, until):
    """``pytest tipc -v | head -N``: pytest stops at its next write (its own start, or an item's
    line); what ran is recorded with its legacy lines, the run is ended and nothing is left running. A pytest
    stopped during its own start never began the run: it writes nothing at all."""
    import tipc

    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    argv = [sys.executable, "-m", "pytest", str(Path(tipc.__file__).parent), "-c", str(tmp_path / "pytest.ini"),
            "-v", "-p", "no:cacheprovider", "--config", str(fake_repo / CPU_CONFIG), "--mode", MODE,
            "--tipc-python", sys.executable, "--tipc-report-dir", str(tmp_path / "reports")]  # fmt: skip
    harness = subprocess.Popen(argv, cwd=fake_repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert harness.stdout is not None and harness.stderr is not None
    while (line := harness.stdout.readline()) and until not in line.decode():
        pass
    harness.stdout.close()
    err = harness.stderr.read().decode()
    harness.stderr.close()
    assert harness.wait(120) == 1, err  # pytest's status for a closed stdout
    out = _out(fake_repo)
    if not until and not (out / "run.json").exists():  # it stopped before its items: no run, no files
        assert not (out / "results.jsonl").exists() and not (tmp_path / "reports").exists()
        return
    info = json.loads((out / "run.json").read_text())
    assert info["ended"], err
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["status"] for r in records] == ["passed"] * len(records)
    assert len((out / "results_python.log").read_text().splitlines()) == len(records)
    assert marked(RUN_MARKER, info["run_id"]) == {}
    if until:  # pytest got as far as its items: the stages it ran are in the report
        assert records and list((tmp_path / "reports").rglob("index.html"))


KILLS = 12  # random moments; each round is about a second of the fake target's run


def test_a_sigkilled_harness_leaves_every_finished_stage_recorded_and_no_process(fake_repo, fake_plan):
    """SIGKILL at random moments of ``tipc run``: every stage that ended has its record and its legacy
    line; the one that was running is recorded as interrupted by the next run; nothing of the run
    survives it (the watchdog)."""
    rng = random.Random(21)
    out = _out(fake_repo)
    seen: set[str] = {""}
    for round_ in range(KILLS):
        legacy_log = out / "results_python.log"
        lines_before = len(legacy_log.read_text().splitlines()) if legacy_log.exists() else 0
        for log in out.glob("*.log"):  # a footer found later is this round's
            if log != legacy_log:
                log.unlink()
        harness = subprocess.Popen(_cli(fake_repo, "--no-report"), cwd=fake_repo, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)  # fmt: skip
        assert wait_for(lambda: _run_id(out) not in seen, 60)
        run_id = _run_id(out)
        seen.add(run_id)
        time.sleep(rng.uniform(0.0, 1.5))
        harness.kill()
        harness.wait()
        assert wait_for(lambda run_id=run_id: marked(RUN_MARKER, run_id) == {}, 30), f"round {round_}: left running"
        # The next run's begin archives this one and records the stage it was running.
        clean_up = PlanRun(fake_plan, RunSettings(), ProcessExecutor(grace=0.2))
        clean_up.begin()
        clean_up.end()
        seen.add(clean_up.run_id)
        archived = out / "runs" / run_id / "results.jsonl"
        records = [json.loads(line) for line in archived.read_text().splitlines()] if archived.exists() else []
        legacy = legacy_log.read_text().splitlines()[lines_before:]
        killed = [r for r in records if r["reason"] == "interrupted: the harness was killed while this stage ran"]
        recorded = [r for r in records if r not in killed]
        assert len(killed) <= 1 and len(records) == len({r["id"] for r in records}), f"round {round_}: {records}"
        assert all(r["status"] == "passed" for r in recorded)
        # Each recorded stage has its legacy line; one more only for the stage the kill hit between
        # its line and its record (two appends in a row).
        assert len(legacy) - len(recorded) in ((0, 1) if killed else (0,)), f"round {round_}: {legacy} {records}"
        # Every stage whose process ran to its end (its log has the footer) is recorded.
        ended = {
            s.id
            for s in fake_plan.stages()
            if (log := clean_up.log_of(s)).is_file() and "# exit code:" in log.read_text()
        }
        assert ended <= {r["id"] for r in records}, f"round {round_}: {ended} vs {records}"


def _run_id(out: Path) -> str:
    try:
        return str(json.loads((out / "run.json").read_text())["run_id"])
    except (OSError, ValueError, KeyError):
        return ""
