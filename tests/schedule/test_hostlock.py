"""Alone across processes: a CPU benchmark in one process shares the machine with no stage of another."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tipc.schedule import hostlock

HOLD = """
import sys, time
from pathlib import Path
from tipc.schedule import hostlock
with hostlock.hold(Path(sys.argv[1]), alone=sys.argv[2] == "alone"):
    start = time.time()
    time.sleep(float(sys.argv[3]))
    print(sys.argv[2], start, time.time(), flush=True)
"""


def hold(lock: Path, how: str, seconds: float) -> subprocess.Popen:
    argv = [sys.executable, "-c", HOLD, str(lock), how, str(seconds)]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)


@pytest.mark.parametrize("order", ["shared-first", "alone-first"])
def test_alone_excludes_every_other_holder_and_shared_ones_overlap(tmp_path, order):
    lock = tmp_path / "run.host"
    hows = ["shared", "shared", "alone", "shared"] if order == "shared-first" else ["alone", "shared", "shared"]
    procs = []
    for how in hows:
        procs.append(hold(lock, how, 0.4))
        time.sleep(0.1)
    spans = [(how, float(a), float(b)) for how, a, b in (p.communicate(timeout=30)[0].split() for p in procs)]
    alone = next(s for s in spans if s[0] == "alone")
    assert not [s for s in spans if s is not alone and s[1] < alone[2] and alone[1] < s[2]]
    shared = [s for s in spans if s[0] == "shared"]
    assert any(a[1] < b[2] and b[1] < a[2] for i, a in enumerate(shared) for b in shared[i + 1 :])


def test_the_owner_removes_the_lock_files(tmp_path):
    lock = tmp_path / "run.host"
    with hostlock.hold(lock, alone=False):
        pass
    assert lock.exists() and lock.with_suffix(".gate").exists()
    hostlock.remove(lock)
    hostlock.remove(lock)  # twice: nothing left is fine
    assert list(tmp_path.iterdir()) == []
