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
