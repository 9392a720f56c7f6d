"""Reading /proc: only the processes born since a stage started, unless the pid counter wrapped."""

from __future__ import annotations

import os
import subprocess
import sys

from tipc.run import proctree


def test_snapshot_from_a_pid_reads_the_processes_born_since(monkeypatch):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        since = proctree.snapshot(born_from=child.pid)
        assert child.pid in since and os.getpid() not in since  # we were born before it
        monkeypatch.setattr(proctree, "_last_pid", lambda: child.pid - 1)  # the counter wrapped since
        assert os.getpid() in proctree.snapshot(born_from=child.pid)
        assert os.getpid() in proctree.snapshot()
    finally:
        child.kill()
        child.wait()


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
