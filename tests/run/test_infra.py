"""The machine's failures named as such: the scheduler, the OOM killer, a lost node (tipc.run.infra)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.support.fake_target import CPU_CONFIG
from tests.support.processes import wait_for
from tipc.results.outcome import INFRA_EXIT, Outcome, outcome_of
from tipc.run.infra import NODE, OOM, SCHEDULER, UNREACHED, Clues, cgroup_oom_count, infra_of

SLURM = {"SLURM_JOB_ID": "4242"}
TERM, KILL = -signal.SIGTERM, -signal.SIGKILL
OOM_LINE = "Out of memory: Killed process 5123 (python) total-vm:20971520kB, anon-rss:18874368kB"


@pytest.mark.parametrize(
    ("clues", "kind", "evidence"),
    [
        (Clues(TERM, env=SLURM, job_state="CANCELLED"), SCHEDULER, {"state": "CANCELLED", "signal": "SIGTERM"}),
        (Clues(TERM, env=SLURM, job_state="TIMEOUT"), SCHEDULER, {"state": "TIMEOUT", "job": "4242"}),
        (Clues(TERM, env=SLURM, job_state="COMPLETING"), SCHEDULER, {"state": "COMPLETING"}),
        (Clues(KILL, env=SLURM, job_state="PREEMPTED"), SCHEDULER, {"state": "PREEMPTED", "signal": "SIGKILL"}),
        (Clues(TERM, "SIGTERM", env=SLURM), SCHEDULER, {"state": "unknown", "signal": "SIGTERM"}),
        (Clues(TERM, "SIGTERM", env=SLURM, job_state="cancelled"), SCHEDULER, {"state": "CANCELLED"}),
        (Clues(None, "SIGTERM", env=SLURM, job_state="NODE_FAIL"), SCHEDULER, {"state": "NODE_FAIL"}),
        (Clues(TERM, env=SLURM), SCHEDULER, {"state": "unknown", "signal": "SIGTERM"}),
        (Clues(TERM, interrupted=True, env=SLURM), SCHEDULER, {"state": "unknown"}),
        (Clues(KILL, oom_killed=True, oom_line=OOM_LINE), OOM, {"evidence": OOM_LINE, "signal": "SIGKILL"}),
        (Clues(KILL, cgroup_oom_kills=1), OOM, {"evidence": "the cgroup oom_kill rose while it ran"}),
        (Clues(KILL, oom_killed=True), OOM, {"evidence": "the kernel oom_kill count rose while it ran"}),
        (Clues(1, lost_node="node 1 (127.0.0.3) went silent at 08:41:07"), NODE, {"node": "node 1 (127.0.0.3) went silent at 08:41:07"}),
        (
            Clues(1, launch_lines=("step 3", "RuntimeError: Connection reset by peer", "Process abort signal")),
            NODE,
            {"log": "RuntimeError: Connection reset by peer"},
        ),
        (Clues(-signal.SIGABRT, launch_lines=("rendezvous timed out after 30 s",)), NODE, {"log": "rendezvous timed out after 30 s"}),
    ],
    ids=[
        "slurm-cancel", "slurm-time-limit", "slurm-cancel-as-scontrol-says-it", "slurm-preempt-kill", "sigterm-in-a-job-state-unknown",
        "state-in-lower-case", "stopped-before-the-stage-exited", "sigterm-first-to-the-stage", "stopped-in-another-thread", "oom-kernel-line", "oom-cgroup-count",
        "oom-kernel-count", "node-watch", "launch-log-peer-reset", "launch-log-rendezvous",
    ],
)  # fmt: skip
def test_the_machines_hand_is_named_with_its_evidence(clues, kind, evidence):
    found = infra_of(clues)
    assert found is not None and found.kind == kind
    assert evidence.items() <= found.evidence.items()
    assert found.record()["kind"] == kind and found.text().startswith("infra: ended by ")


@pytest.mark.parametrize(
    "clues",
    [
        Clues(1, launch_lines=("Traceback (most recent call last):", "ValueError: bad shape")),
        Clues(0),
        Clues(KILL),  # a SIGKILL with no OOM evidence: a person or another program
        Clues(TERM),  # SIGTERM outside any scheduler
        Clues(TERM, "SIGTERM"),  # tipc asked to stop outside a scheduler: interrupted, not infra
        Clues(TERM, env=SLURM, job_state="RUNNING"),  # a person's kill inside a job that goes on
        Clues(None, "", env=SLURM),  # the stage never started
        Clues(KILL, env=SLURM),  # a SIGKILL the scheduler does not own: the OOM killer with no trace, a person
        Clues(TERM, interrupted=True, env=SLURM, job_state="RUNNING"),  # Ctrl-C in an interactive job
        Clues(KILL, env=SLURM, job_state="COMPLETED", oom_killed=False),
        Clues(TERM, "SIGTERM", launch_lines=("Connection reset by peer",)),  # the peers stopped with us
    ],
    ids=[
        "model-error",
        "passed",
        "sigkill",
        "sigterm",
        "stopped",
        "job-running",
        "not-started",
        "sigkill-in-a-job",
        "ctrl-c-in-a-job",
        "job-done",
        "stopped-peers",
    ],
)
def test_the_models_and_the_persons_ends_are_not_infra(clues):
    assert infra_of(clues) is None


@pytest.mark.parametrize(
    ("statuses", "interrupted", "outcome"),
    [
        (["passed", "infra", "blocked"], False, Outcome.INFRA),
        (["passed", "infra", "failed"], False, Outcome.FAILED),  # the model's failure comes first
        (["passed", "infra"], True, Outcome.INFRA),  # stopped by the scheduler, and it said so
        (["passed", "failed"], True, Outcome.INTERRUPTED),
    ],
)
def test_an_infra_stage_makes_the_run_infra_with_its_own_exit_status(statuses, interrupted, outcome):
    found = outcome_of(statuses, interrupted=interrupted)
    assert found is outcome and (found.exit_status == INFRA_EXIT) == (outcome is Outcome.INFRA)


def test_the_cgroup_count_reads_memory_events(tmp_path):
    events = tmp_path / "memory.events"
    events.write_text("low 0\nhigh 0\nmax 4\noom 2\noom_kill 2\noom_group_kill 0\n")
    assert cgroup_oom_count(events) == 2
    assert cgroup_oom_count(tmp_path / "absent") is None


def test_a_slurm_cancel_ends_the_stage_as_infra_with_its_evidence(fake_repo):
    """A real ``tipc run`` in a (pretend) Slurm job, terminated as ``scancel`` does while a stage runs."""
    results = fake_repo / "test_tipc/output/fake_rec/lite_train_lite_infer"
    env = {**os.environ, "TIPC_FAKE": "infer:sleep=60", **SLURM}
    argv = [sys.executable, "-m", "tipc", "run", "--config", str(fake_repo / CPU_CONFIG), "--mode",
            "lite_train_lite_infer", "--python", sys.executable, "--no-report"]  # fmt: skip
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        lines = lambda: (results / "results.jsonl").read_text().splitlines()  # noqa: E731
        assert wait_for(lambda: (results / "results.jsonl").is_file() and len(lines()) == 3, 60)
        time.sleep(0.3)  # the infer case starts within milliseconds, then sleeps for a minute
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == INFRA_EXIT, out.decode()
    records = [json.loads(line) for line in lines()]
    assert [r["status"] for r in records] == ["passed"] * 3 + ["infra", "blocked"]
    stopped, unreached = records[3:]
    assert stopped["reason"].startswith("infra: ended by the scheduler")
    assert stopped["infra"] == {"kind": "scheduler", "scheduler": "slurm", "job": "4242", "state": "unknown",
                                "signal": "SIGTERM"}  # fmt: skip
    assert unreached["reason"].startswith(f"{UNREACHED} ({stopped['id']}: infra: ended by the scheduler")
