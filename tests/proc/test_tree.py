"""Finding a process tree and marked processes in /proc, whatever the order of their pids."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tipc.proc import tree


def fake_proc(root: Path, table: dict[int, tuple[int, int, int, str]]) -> None:
    """A /proc of ``pid -> (ppid, pgid, sid, environ)`` entries, each started at tick ``pid``."""
    for pid, (ppid, pgid, sid, environ) in table.items():
        folder = root / str(pid)
        folder.mkdir()
        fields = ["S", str(ppid), str(pgid), str(sid), *["0"] * 15, str(1000 + pid), "0"]
        (folder / "stat").write_text(f"{pid} (python) {' '.join(fields)}\n")
        (folder / "environ").write_bytes(environ.encode() + b"\0")
    (root / "self").mkdir()  # not a pid: skipped


@pytest.mark.parametrize(
    "grandchild",
    [300, 32001],
    ids=["after-a-pid-wrap", "in-pid-order"],
)
def test_a_stages_descendants_are_found_whatever_their_pids(tmp_path, monkeypatch, grandchild):
    """pid_max is 32768 here: a stage at 32000 whose child got 32700 may have a grandchild at 300
    (the counter wrapped), while the pids handed out since went past 32000 again."""
    fake_proc(
        tmp_path,
        {
            1: (0, 1, 1, "A=1"),
            32000: (1, 32000, 32000, "TIPC_STAGE_ID=s1"),  # the stage's root: its own session
            32700: (32000, 32700, 32700, "TIPC_STAGE_ID=s1"),  # its child, in a session of its own
            grandchild: (32700, 32700, 32700, "TIPC_STAGE_ID=s1"),
            32100: (1, 32100, 32100, "A=1"),  # someone else's, born since
        },
    )
    monkeypatch.setattr(tree, "PROC", str(tmp_path))
    assert set(tree.Tracker(32000).scan()) == {32700, grandchild}
    assert set(tree.marked(tree.PROC_MARKER, "s1")) == {32000, 32700, grandchild}


def test_a_trackers_birth_is_its_roots_start_time_read_after_the_exit_as_at_the_start():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        started = tree.snapshot()[child.pid].start
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped: the pid is still its own
        assert tree.Tracker(child.pid).born() == started
        table = tree.snapshot()
        assert table[child.pid].zombie
        assert tree.Tracker(child.pid).born(table) == started
    finally:
        child.wait()


def test_a_sweep_reads_no_table_when_nothing_was_started_since_the_root(monkeypatch):
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
        monkeypatch.setattr(tree, "_last_pid", lambda: child.pid)

        def listed(path: str) -> list[str]:
            raise AssertionError(f"{path} was listed")

        monkeypatch.setattr(tree.os, "listdir", listed)
        tree.sweep(tree.Tracker(child.pid), lambda: False, "token", 0.1)
    finally:
        child.wait()
