"""A stage started ahead: the next stage starts the moment the last one passes, and its record is
written while the next one runs. Nothing it starts that way outlives a stop, a Ctrl-C or a change
of order, and nothing starts ahead that its gate or the run would not let run."""

from __future__ import annotations

import json
import time

import pytest

from tipc.results.records import Status
from tipc.run.executor import ProcessExecutor
from tipc.run.plan_run import PlanRun, RunSettings


@pytest.fixture
def plan_run(fake_plan):
    run = PlanRun(fake_plan, RunSettings(), ProcessExecutor(grace=0.2))
    run.begin()
    yield run
    run.end()


def stages(run: PlanRun):
    return list(run.plan.stages())


def records(run: PlanRun) -> list[tuple[str, str, str]]:
    return [(r.id.rpartition("::")[2], r.status.value, r.reason) for r in run.results.records()]


def test_the_next_stage_starts_as_the_last_one_passes_and_runs_after_it(plan_run):
    train, evaluate, *_ = stages(plan_run)
    first = plan_run.run_stage(train, evaluate)
    assert first.status is Status.PASSED
    log = plan_run.log_of(evaluate)
    assert log.read_text().startswith(f"# tipc stage: {evaluate.id}\n")  # started, by the time train's record is back
    assert [r[0] for r in records(plan_run)] == ["train"]  # train's record is on disk
    second = plan_run.run_stage(evaluate)
    assert second.status is Status.PASSED and second.log == str(log)
    assert second.start >= first.start + first.duration  # one after the other, never side by side
    assert [r[:2] for r in records(plan_run)] == [("train", "passed"), ("eval", "passed")]


def test_a_closed_gate_starts_nothing_ahead(plan_run, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE", "train:fail")
    train, evaluate, *_ = stages(plan_run)
    assert plan_run.run_stage(train, evaluate).status is Status.FAILED
    assert not plan_run.log_of(evaluate).exists()
    assert plan_run.run_stage(evaluate).status is Status.BLOCKED  # recorded at its turn, as always


def test_nothing_starts_ahead_of_a_failure(plan_run, monkeypatch):
    """A failed stage may end the run (``pytest -x``): the next one waits to be asked."""
    monkeypatch.setenv("TIPC_FAKE", "eval:fail")
    train, evaluate, export, *_ = stages(plan_run)
    plan_run.run_stage(train, evaluate)
    assert plan_run.run_stage(evaluate, export).status is Status.FAILED
    assert not plan_run.log_of(export).exists()


def test_a_false_pass_takes_back_the_stage_started_at_its_exit(plan_run, monkeypatch):
    """The next stage starts on the exit code (before the sweep and the judging); a stage that
    exited 0 but is judged failed stops it, unrecorded, and its gate then says why."""
    import tipc.run.plan_run as module

    monkeypatch.setattr(module, "false_pass", lambda *a, **k: "exit code 0 but it did not write latest.pdparams")
    monkeypatch.setenv("TIPC_FAKE", "eval:sleep=30")
    train, evaluate, *_ = stages(plan_run)
    t0 = time.monotonic()
    assert plan_run.run_stage(train, evaluate).status is Status.FAILED
    assert not plan_run.log_of(evaluate).exists()
    assert plan_run.run_stage(evaluate).status is Status.BLOCKED
    assert time.monotonic() - t0 < 10
    assert [r[:2] for r in records(plan_run)] == [("train", "failed"), ("eval", "blocked")]


def test_a_stage_asked_for_again_stops_the_one_started_ahead_unrecorded(plan_run, monkeypatch):
    """A plugin re-running the last stage: the stage started ahead is stopped and runs at its turn;
    what it began to write does not pass for its earlier run's outputs meanwhile."""
    train, evaluate, *_ = stages(plan_run)
    plan_run.run_stage(train)
    plan_run.run_stage(evaluate)
    monkeypatch.setenv("TIPC_FAKE", "eval:sleep=30")
    plan_run.run_stage(train, evaluate)
    t0 = time.monotonic()
    assert plan_run.run_stage(train).status is Status.PASSED  # again, without waiting for eval's sleep
    assert time.monotonic() - t0 < 10
    assert [r[0] for r in records(plan_run)] == ["train", "eval", "train", "train"]
    assert not plan_run.results.passed_before(evaluate)
    assert not plan_run.log_of(evaluate).exists()
    monkeypatch.delenv("TIPC_FAKE")
    assert plan_run.run_stage(evaluate).status is Status.PASSED
    assert "# exit code: 0" in plan_run.log_of(evaluate).read_text()  # its log written anew


def test_the_end_of_the_run_stops_a_stage_started_ahead_and_records_it_interrupted(plan_run, monkeypatch):
    """``pytest -x`` or a Ctrl-C between two items: the stage started ahead is not left running."""
    monkeypatch.setenv("TIPC_FAKE", "eval:sleep=30")
    train, evaluate, *_ = stages(plan_run)
    plan_run.run_stage(train, evaluate)
    t0 = time.monotonic()
    plan_run.end()
    assert time.monotonic() - t0 < 10
    assert records(plan_run)[-1] == ("eval", "failed", "interrupted: the run stopped")
    assert "interrupted: the run stopped" in plan_run.log_of(evaluate).read_text()  # its footer
    assert plan_run.results.running_stages() == ()


def test_a_stage_stopped_takes_back_its_earlier_pass(plan_run, monkeypatch):
    """Its outputs may be half-written: a later run that leaves it out must not use them."""
    train, evaluate, *_ = stages(plan_run)
    plan_run.run_stage(train)
    plan_run.run_stage(evaluate)
    assert plan_run.results.passed_before(evaluate)
    monkeypatch.setenv("TIPC_FAKE", "eval:sleep=30")
    plan_run.run_stage(train, evaluate)
    plan_run.end()
    assert not plan_run.results.passed_before(evaluate)


def test_a_ctrl_c_while_a_record_is_written_stops_the_stage_started_ahead(plan_run, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE", "eval:sleep=30")
    train, evaluate, *_ = stages(plan_run)

    def interrupted(line: str, name: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(plan_run.results, "append_legacy", interrupted)
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        plan_run.run_stage(train, evaluate)
    assert time.monotonic() - t0 < 10
    written = [json.loads(line) for line in plan_run.results.records_file.read_text().splitlines()]
    assert [(r["id"].rpartition("::")[2], r["reason"]) for r in written] == [("eval", "interrupted: the run stopped")]
