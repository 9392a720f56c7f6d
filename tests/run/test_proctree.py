"""Reading /proc: only the processes born since a stage started, unless the pid counter wrapped."""

from __future__ import annotations

import os
import subprocess
import sys

from tipc.run import proctree


def _two_in_pid_order() -> tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]]:
    """An older and a younger sleeper whose pids increase (pid_max is small in containers: a
    counter that wrapped between the two is retried, so the test compares what it means to)."""
    while True:
        older = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        younger = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        if younger.pid > older.pid:
            return older, younger
        for p in (older, younger):
            p.kill()
            p.wait()


def test_snapshot_from_a_pid_reads_the_processes_born_since(monkeypatch):
    older, child = _two_in_pid_order()
    try:
        since = proctree.snapshot(born_from=child.pid)
        assert child.pid in since and older.pid not in since  # born before it
        monkeypatch.setattr(proctree, "_last_pid", lambda: child.pid - 1)  # the counter wrapped since
        assert older.pid in proctree.snapshot(born_from=child.pid)
        assert older.pid in proctree.snapshot()
    finally:
        for p in (older, child):
            p.kill()
            p.wait()


def test_a_trackers_birth_is_its_roots_start_time_read_after_the_exit_as_at_the_start():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        started = proctree.snapshot(born_from=child.pid)[child.pid].start
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped: the pid is still its own
        assert proctree.Tracker(child.pid).born() == started
        table = proctree.snapshot(born_from=child.pid)
        assert table[child.pid].zombie
        assert proctree.Tracker(child.pid).born(table) == started
    finally:
        child.wait()


def test_when_no_pid_was_handed_out_since_the_root_only_the_root_is_read(monkeypatch):
    """The usual quick stage started nothing: its sweep reads one stat instead of listing /proc."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        monkeypatch.setattr(proctree, "_last_pid", lambda: child.pid)

        def no_listing(path: str) -> list[str]:
            raise AssertionError(f"{path} was listed")

        monkeypatch.setattr(proctree.os, "listdir", no_listing)
        assert list(proctree.snapshot(born_from=child.pid)) == [child.pid]
    finally:
        child.kill()
        child.wait()


def test_the_next_stage_started_since_is_no_reason_to_list_proc(monkeypatch):
    """The next stage starts as this one exits: the pids handed out since are the harness's own
    (its roots) and the sweep still reads one stat; any other pid since, and /proc is listed."""
    older, child = _two_in_pid_order()  # a stage (older) and the next one (child), started after it
    listed: list[str] = []
    listdir = os.listdir
    monkeypatch.setattr(proctree.os, "listdir", lambda path: listed.append(path) or listdir(path))
    try:
        monkeypatch.setattr(proctree, "_last_pid", lambda: child.pid)
        handed_out = set(range(older.pid + 1, child.pid + 1))  # the next stage, and whatever came between
        assert list(proctree.snapshot(older.pid, started_since=handed_out)) == [older.pid]
        assert listed == []
        monkeypatch.setattr(proctree, "_last_pid", lambda: older.pid + 2)
        proctree.snapshot(older.pid, started_since={older.pid + 2})  # older.pid + 1: not the harness's
        assert listed == [proctree.PROC]
    finally:
        for p in (older, child):
            p.kill()
            p.wait()
