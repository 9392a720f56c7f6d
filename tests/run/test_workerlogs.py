"""Launch stages: where the worker logs are, and which ones a failure shows (the one finder the
console, a failure's cause, a stage's reason and the report ask)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tipc.results.records import StageRecord, Status
from tipc.run.workerlogs import failing_workers, offset_of, record_worker_logs, shown_workers, worker_logs

LAUNCH = ("py", "-m", "paddle.distributed.launch", "--nproc_per_node=2")


def _train(tmp_path: Path, argv=(), metrics=None) -> StageRecord:
    return StageRecord(
        id="c::train",
        kind="train",
        chain="c",
        status=Status.FAILED,
        argv=argv,
        cwd=str(tmp_path),
        log=str(tmp_path / "S" / "train.log"),
        metrics=metrics or {},
    )


@pytest.mark.parametrize("where", ["argv-eq", "argv-sep", "metrics", "beside-log", "not-a-launch"])
def test_worker_logs_are_found_by_any_clue_of_a_launch(tmp_path, where):
    d = tmp_path / "S" / "norm_train_launch_log" if where in ("beside-log", "not-a-launch") else tmp_path / "logs"
    d.mkdir(parents=True)
    for n in (10, 2, 0):
        (d / f"workerlog.{n}").write_text(f"rank {n}\n")
    (d / "endpoints.log").write_text("")
    argv = {
        "argv-eq": (*LAUNCH, "--log_dir=logs", "train.py"),
        "argv-sep": (*LAUNCH, "--log_dir", "logs", "train.py"),
        "beside-log": (*LAUNCH, "train.py"),
        "not-a-launch": ("py", "train.py", "--log_dir=logs"),  # another chain's launch logs lie beside its log
    }.get(where, ())
    metrics = {"launch_log_dir": str(d)} if where == "metrics" else None
    logs = record_worker_logs(_train(tmp_path, argv, metrics))
    expected = [] if where == "not-a-launch" else ["workerlog.0", "workerlog.2", "workerlog.10"]
    assert [p.name for p in logs] == expected


FAILED_BY_LAUNCHER = "Container rank 1 status failed cmd [...] code 1 log x/workerlog.1\n"


@pytest.mark.parametrize(
    ("launcher", "logs", "failing", "shown"),
    [
        (FAILED_BY_LAUNCHER, {0: "ok\n", 1: "Traceback\n"}, [1], [1]),
        ("Exit code 1\n", {0: "fine\n", 1: "ValueError: bad\n"}, [1], [1]),
        ("", {0: "ok\n", 1: "Error: peer lost\n", 2: "Traceback (most recent call last):\nboom\n"}, [2, 1], [2, 1]),
        ("timed out\n", {0: "waiting\n", 1: "waiting\n"}, [], [0, 1]),
        ("", {}, [], []),
    ],
    ids=["named-by-launcher", "error-in-log", "a-traceback-first", "nobody-failed-show-all", "no-logs"],
)
def test_failing_and_shown_workers(tmp_path, launcher, logs, failing, shown):
    stage_log = tmp_path / "stage.log"
    stage_log.write_text(launcher)
    for rank, text in logs.items():
        (tmp_path / f"workerlog.{rank}").write_text(text)
    found = worker_logs(tmp_path).values()
    assert failing_workers(stage_log, found, {}) == tuple(tmp_path / f"workerlog.{r}" for r in failing)
    assert shown_workers(stage_log, found, {}) == tuple(tmp_path / f"workerlog.{r}" for r in shown)


def test_what_earlier_runs_appended_to_a_worker_log_is_no_evidence(tmp_path):
    old, new = tmp_path / "workerlog.0", tmp_path / "workerlog.1"
    earlier = "run 1 line\nTraceback (most recent call last):\nold boom\n"
    old.write_text(earlier + "waiting for peers\n")
    new.write_text("Error: peer lost\n")
    assert failing_workers("", (old, new), {}) == (old, new)  # the old traceback is the strongest marker
    assert failing_workers("", (old, new), {f"{tmp_path}/./workerlog.0": len(earlier)}) == (new,)


def test_a_worker_log_that_is_a_fifo_is_no_evidence_and_no_hang(tmp_path):
    import os

    os.mkfifo(tmp_path / "workerlog.0")
    (tmp_path / "workerlog.1").write_text("Traceback (most recent call last):\n")
    assert failing_workers(tmp_path / "stage.log", worker_logs(tmp_path).values(), {}) == (tmp_path / "workerlog.1",)


def test_worker_logs_are_in_rank_order_past_nine(tmp_path):
    for rank in (10, 2, 0):
        (tmp_path / f"workerlog.{rank}").write_text("")
    (tmp_path / "endpoints.log").write_text("")
    assert list(worker_logs(tmp_path)) == [0, 2, 10]


@pytest.mark.parametrize(
    "logged, asked, offset",
    [
        ("{d}/S/train.log", "{d}/S/train.log", 7),
        ("{d}/S/./train.log", "{d}/S/train.log", 7),
        ("{d}/S_launch_log/workerlog.0", "{d}/S/../S_launch_log/workerlog.0", 7),
        ("{d}/S/train.log", "{d}/S/other.log", 0),
    ],
    ids=["same", "dot-segment", "dotdot-segment", "not-recorded"],
)
def test_offset_of_matches_paths_however_spelt(tmp_path, logged, asked, offset):
    rec = StageRecord(
        id="c::train", kind="train", chain="c", status=Status.FAILED, log_offsets={logged.format(d=tmp_path): 7}
    )
    assert offset_of(rec, asked.format(d=tmp_path)) == offset
