"""Durations and peaks of earlier runs: the newest record of a stage wins; unmeasured stages get means."""

from __future__ import annotations

import pytest

from tests.schedule.plans import plan_of, variant
from tipc.history.durations import Durations, Measured, read_history, stage_key
from tipc.results.folder import ResultsDir
from tipc.results.records import RunInfo, StageRecord, Status


def rec(sid: str, duration: float, start: float, status=Status.PASSED, peak=None, config="/a/b/m/c.txt", root=None):
    return StageRecord(
        id=sid,
        kind=sid.rpartition("::")[2].partition("[")[0],
        chain=sid.partition("::")[0],
        status=status,
        config=config,
        duration=duration,
        start=start,
        peak_rss_mb=peak,
        process_peak_rss_mb=root,
    )


def test_newest_record_wins_across_this_run_and_the_one_before(tmp_path):
    folder = ResultsDir(tmp_path)
    folder.begin(RunInfo(model="m", mode="x", config="c", run_id="R1"))
    folder.append_record(rec("c::train", 10.0, 1.0, peak=100.0))
    folder.append_record(rec("c::eval", 2.0, 2.0))
    folder.end(RunInfo(model="m", mode="x", config="c", run_id="R1"))
    folder.begin(RunInfo(model="m", mode="x", config="c", run_id="R2"))  # R1 moves to runs/R1/
    folder.append_record(rec("c::train", 12.0, 5.0, peak=120.0, root=80.0))
    folder.append_record(rec("c::export", 3.0, 6.0, status=Status.BLOCKED))  # ran nothing: not a measurement
    history = read_history([tmp_path])
    assert history == {
        stage_key("/x/m/c.txt", "c::train"): Measured(12.0, 120.0, 5.0, whole_tree=True),
        stage_key("/x/m/c.txt", "c::eval"): Measured(2.0, None, 2.0),
    }


def test_unmeasured_stages_take_the_mean_of_their_kind_then_of_all_then_one_second():
    plan = plan_of(variant({"gpu_list": "0|1"}))
    first, second = plan.chains
    history = {
        stage_key(plan.config_path, first.stages[0].id): Measured(30.0, None, 1.0),
        stage_key(plan.config_path, first.stages[1].id): Measured(4.0, None, 1.0),
        stage_key("other/c.txt", "x::train"): Measured(10.0, None, 1.0),
    }
    durations = Durations.of(history)
    seconds = [durations.stage(plan.config_path, s) for s in second.stages[:3]]
    assert seconds == [20.0, 4.0, pytest.approx(44 / 3)]  # train: mean of trains; eval: its own; export: of all
    assert Durations.of({}).stage(plan.config_path, second.stages[0]) == 1.0
