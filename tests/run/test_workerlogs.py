"""Launch stages: where the worker logs are, and which ones a failure shows."""

from __future__ import annotations

import pytest

from tipc.run.workerlogs import failing_workers, launch_log_dir, worker_logs

LAUNCH = ("py", "-m", "paddle.distributed.launch", "--nproc_per_node=2", "--log_dir=./out/S_launch_log", "train.py")


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (LAUNCH, "/repo/out/S_launch_log"),
        (("py", "train.py", "--log_dir=x"), None),
        ((*LAUNCH[:4], "train.py"), None),
    ],
    ids=["launch", "not-a-launch", "launch-without-log-dir"],
)
def test_launch_log_dir(argv, expected):
    found = launch_log_dir(argv, "/repo")
    assert (None if found is None else str(found)) == expected


FAILED_BY_LAUNCHER = "Container rank 1 status failed cmd [...] code 1 log x/workerlog.1\n"


@pytest.mark.parametrize(
    ("launcher", "logs", "expected"),
    [
        (FAILED_BY_LAUNCHER, {0: "ok\n", 1: "Traceback\n"}, [1]),
        ("Exit code 1\n", {0: "fine\n", 1: "ValueError: bad\n"}, [1]),
        ("timed out\n", {0: "waiting\n", 1: "waiting\n"}, [0, 1]),
        ("", {}, []),
    ],
    ids=["named-by-launcher", "error-in-log", "nobody-failed-show-all", "no-logs"],
)
def test_failing_workers(tmp_path, launcher, logs, expected):
    stage_log = tmp_path / "stage.log"
    stage_log.write_text(launcher)
    for rank, text in logs.items():
        (tmp_path / f"workerlog.{rank}").write_text(text)
    found = failing_workers(str(stage_log), tmp_path)
    assert list(found) == expected
    assert all(path == tmp_path / f"workerlog.{rank}" for rank, path in found.items())


def test_worker_logs_are_in_rank_order_past_nine(tmp_path):
    for rank in (10, 2, 0):
        (tmp_path / f"workerlog.{rank}").write_text("")
    (tmp_path / "endpoints.log").write_text("")
    assert list(worker_logs(tmp_path)) == [0, 2, 10]
