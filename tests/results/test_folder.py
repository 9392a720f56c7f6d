"""The results folder across runs: ownership, moving an earlier run aside, interrupted runs, readers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from tests.support.processes import wait_for
from tipc.errors import OutputError, ResultsError
from tipc.proc.tree import holders
from tipc.results.folder import (
    LOCK,
    FolderBusy,
    ResultsDir,
    group_folder,
    new_run_id,
    read_records,
    read_run_info,
    shard_folder,
)
from tipc.results.records import RunInfo, StageRecord, Status


def info(run_id: str, config: str = "a.txt", **kw) -> RunInfo:
    return RunInfo(model="m", mode="lite_train_lite_infer", config=config, run_id=run_id, configs=(config,), **kw)


def record(sid: str, run_id: str, status: Status = Status.PASSED) -> StageRecord:
    return StageRecord(id=sid, kind="train", chain="c", status=status, config="a.txt", run_id=run_id)


def test_run_ids_sort_by_start_and_never_collide():
    ids = [new_run_id(1_764_500_000.0) for _ in range(200)]
    assert len(set(ids)) == 200 and all(i.startswith("20251130T") for i in ids)
    assert new_run_id(1_764_500_000.0) < new_run_id(1_764_500_001.0)
    assert new_run_id(1_764_500_000.009) < new_run_id(1_764_500_000.01) < new_run_id(1_764_500_000.999)


def test_a_new_run_moves_the_previous_one_aside(tmp_path):
    first = ResultsDir(tmp_path)
    first.begin(info("r1"))
    first.append_record(record("c::train", "r1"))
    first.end(info("r1"))
    second = ResultsDir(tmp_path)
    assert second.begin(info("r2")) is None  # r1 ended: nothing to clean up
    assert second.records() == []
    assert [r.id for r in read_records(tmp_path / "runs" / "r1" / "results.jsonl")] == ["c::train"]
    assert read_run_info(tmp_path / "runs" / "r1" / "run.json").ended
    assert second.previous_run_dir() == tmp_path / "runs" / "r1"


def test_configs_of_one_run_share_the_folder_and_the_last_ends_it(tmp_path):
    folder = ResultsDir(tmp_path)
    folder.begin(info("r1", "a.txt"))
    folder.append_record(record("c::train", "r1"))
    folder.begin(info("r1", "b.txt"))  # the second config of the same run: no reset
    assert [r.id for r in folder.records()] == ["c::train"]
    folder.end(info("r1", "a.txt"))
    assert not read_run_info(tmp_path / "run.json").ended
    folder.end(info("r1", "b.txt"))
    done = read_run_info(tmp_path / "run.json")
    assert done.ended and done.configs == ("a.txt", "b.txt")


HOLDER = textwrap.dedent("""
    import sys, time
    from tipc.results.folder import ResultsDir
    from tipc.results.records import RunInfo
    ResultsDir(__import__("pathlib").Path(sys.argv[1])).begin(
        RunInfo(model="m", mode="lite_train_lite_infer", config="a.txt", run_id="holder-run"))
    print("locked", flush=True)
    time.sleep(30)
""")


def test_a_second_run_on_a_busy_folder_is_refused_by_name(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(
            FolderBusy,
            match=r"is in use by run holder-run \(pid \d+ on .*started .*\); "
            r"wait for it to end, or give this run its own folder",
        ):
            ResultsDir(tmp_path).begin(info("r2"))
        assert read_run_info(tmp_path / "run.json").run_id == "holder-run"  # untouched
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
    ResultsDir(tmp_path).begin(info("r3"))  # a dead holder's lock is gone with it


FORKED = textwrap.dedent("""
    import os, sys, time
    from tipc.results.folder import ResultsDir
    from tipc.results.records import RunInfo
    ResultsDir(__import__("pathlib").Path(sys.argv[1])).begin(
        RunInfo(model="m", mode="lite_train_lite_infer", config="a.txt", run_id="holder-run"))
    child = os.fork()  # shares the lock until it exits, as a process forked without exec does
    if child == 0:
        time.sleep(30)
        os._exit(0)
    print(child, flush=True)
    time.sleep(30)
""")


def test_a_busy_folder_whose_run_died_names_the_process_that_still_holds_it(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", FORKED, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    child = int(holder.stdout.readline())
    holder.kill()
    holder.wait()
    holder.stdout.close()
    try:
        with pytest.raises(FolderBusy, match=rf"is in use by run holder-run \(pid {holder.pid} .*\); held now by pid "
                           rf"{child} \(.*python.* -c .*\); wait for it to end"):  # fmt: skip
            ResultsDir(tmp_path).begin(info("r2"))
    finally:
        os.kill(child, signal.SIGKILL)
    assert wait_for(lambda: not holders(tmp_path / LOCK))
    ResultsDir(tmp_path).begin(info("r3"))


KILLED = textwrap.dedent("""
    import json, sys, time
    from pathlib import Path
    from tipc.results.folder import ResultsDir
    from tipc.results.records import RunInfo, StageRecord, Status
    folder = ResultsDir(Path(sys.argv[1]))
    folder.begin(RunInfo(model="m", mode="lite_train_lite_infer", config="a.txt", run_id="r1"))
    entry = StageRecord(id="c::train", kind="train", chain="c", status=Status.FAILED, run_id="r1")
    folder.note_running(entry.to_json())
    print("running", flush=True)
    time.sleep(30)
""")


def test_a_stage_is_running_only_while_it_runs(tmp_path):
    """A stage's note replaces the one before (the next stage starts as the last one ends); killed between
    two stages, a run left none running: its entry was emptied, not left behind."""
    folder = ResultsDir(tmp_path)
    folder.begin(info("r1"))
    folder.note_between()  # before any note: nothing to take back, no error
    for sid in ("c::train", "c::export"):
        folder.note_running(record(sid, "r1", Status.FAILED).to_json())
        assert [e["id"] for e in folder.running_stages()] == [sid]
    folder.note_between()
    assert folder.running_stages() == ()


def test_a_run_whose_harness_was_killed_is_found_with_its_running_stage(tmp_path):
    harness = subprocess.Popen([sys.executable, "-c", KILLED, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    assert harness.stdout.readline().strip() == "running"
    harness.kill()  # SIGKILL: no cleanup of any kind
    harness.wait()
    harness.stdout.close()
    found = ResultsDir(tmp_path).begin(info("r2"))
    assert found is not None and found.run_id == "r1"
    assert [e["id"] for e in found.stages] == ["c::train"]
    assert read_run_info(tmp_path / "runs" / "r1" / "run.json").ended is False


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("[1, 2]", "expected a JSON object, found list"),
        (
            '{"id": "x", "kind": "train", "chain": "c", "status": "passed", "duration": "slow"}',
            "field 'duration' is 'slow', expected int or float",
        ),
        (
            '{"id": "x", "kind": "train", "chain": "c", "status": "passed", "duration": Infinity}',
            "field 'duration' is inf",
        ),
        ('{"id": null, "kind": "train", "chain": "c", "status": "passed"}', "field 'id' is None, expected str"),
        (
            '{"id": "x", "kind": "train", "chain": "c", "status": "passed", "metrics": [1]}',
            "field 'metrics' is [1], expected dict",
        ),
        (
            '{"id": "x", "kind": "train", "chain": "c", "status": "passed", "node_rank": "a"}',
            "field 'node_rank' is 'a', expected int",
        ),
        ('{"id": "x", "kind": "train", "chain": "c", "status": "great"}', "field 'status' is 'great', expected one of"),
        (b"\xff\xfe", "not a stage record"),
    ],
    ids=["not-object", "duration-text", "infinity", "null-id", "metrics-list", "rank-text", "bad-status", "not-utf8"],
)
def test_a_bad_record_line_is_named_with_file_and_line(tmp_path, line, problem):
    path = tmp_path / "results.jsonl"
    good = record("c::train", "r1").to_json().encode() + b"\n"
    path.write_bytes(good + (line if isinstance(line, bytes) else line.encode()) + b"\n")
    with pytest.raises(ResultsError, match=r"results.jsonl:2: not a stage record \(.*"):
        read_records(path)
    try:
        read_records(path)
    except ResultsError as exc:
        assert problem in str(exc)
    warnings: list[str] = []
    assert [r.id for r in read_records(path, warnings.append)] == ["c::train"]
    assert len(warnings) == 1 and "results.jsonl:2:" in warnings[0]


def test_a_newer_schema_is_refused_by_name(tmp_path):
    (tmp_path / "run.json").write_text(json.dumps({"model": "m", "mode": "x", "config": "c", "schema": 99}))
    with pytest.raises(ResultsError, match="schema 99 is newer than this tipc reads"):
        read_run_info(tmp_path / "run.json")


def test_errors_pickle_and_take_notes():
    import pickle

    err = ResultsError("r.jsonl", 3, "bad")
    err.add_note("seen in a merge")
    again = pickle.loads(pickle.dumps(err))
    assert (str(again), again.line) == ("r.jsonl:3: bad", 3)


# A run group id comes from the environment (SLURM_ARRAY_JOB_ID, CI ids, --run-group): input.
GROUPS = {
    "scheduler-id": ("slurm-41872", "slurm-41872"),  # ordinary ids spelled as given
    "climbing": ("../x", "..%2Fx"),
    "separator": ("a/b", "a%2Fb"),
    "escape-lookalike": ("a%2Fb", "a%252Fb"),
    "absolute": ("/etc", "%2Fetc"),
    "dot": (".", "%2E"),
    "dotdot": ("..", "%2E%2E"),
    "control": ("x\x1b[2J", "x%1B[2J"),
}


@pytest.mark.parametrize(("group", "name"), GROUPS.values(), ids=GROUPS.keys())
def test_a_run_groups_shard_folder_is_one_component_under_the_mode_folder(tmp_path, group, name):
    assert shard_folder(tmp_path / "mode", group, 2) == tmp_path / "mode" / "shards" / name / "shard2"


def test_distinct_run_groups_get_distinct_shard_folders(tmp_path):
    groups = [group for group, _ in GROUPS.values()] + ["a" * 300, "a" * 301]  # long ones cut, with a hash
    folders = {group_folder(tmp_path, group) for group in groups}
    assert len(folders) == len(groups) and {f.parent for f in folders} == {tmp_path / "shards"}


def test_a_link_cannot_take_a_shard_folder_out_of_its_mode_folder(tmp_path):
    (tmp_path / "mode" / "shards").mkdir(parents=True)
    (tmp_path / "mode" / "shards" / "night-1").symlink_to(tmp_path)
    with pytest.raises(OutputError, match="a link takes it out of"):
        shard_folder(tmp_path / "mode", "night-1", 1)
