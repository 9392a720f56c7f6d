"""``tipc.proc.child``: one supervision for stages and questions alike."""

from __future__ import annotations

import sys
import time

import pytest

from tests.support.processes import gone, wait_for
from tipc.proc.child import ask

# Leaves a grandchild that ignores SIGTERM, in a session of its own, then waits past any timeout.
LEAVES = """
import os, signal, subprocess, sys, time
code = "import os, signal, time; os.setsid(); signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"
print(subprocess.Popen([sys.executable, "-c", code]).pid, flush=True)
print("ready", file=sys.stderr, flush=True)
time.sleep(int(sys.argv[1]))
"""


@pytest.mark.parametrize("waits", [600, 0], ids=["timed-out", "exits-leaving-it"])
def test_a_question_leaves_no_grandchild(tmp_path, waits):
    pidfile = tmp_path / "pid"
    code = LEAVES.replace("flush=True)\nprint", f"flush=True, file=open({str(pidfile)!r}, 'w'))\nprint")
    t0 = time.monotonic()
    answer = ask([sys.executable, "-c", code, str(waits)], timeout=3.0 if waits else 60.0, grace=0.2)
    assert time.monotonic() - t0 < 60
    assert answer.timed_out is bool(waits)
    if not waits:
        assert answer.returncode == 0 and answer.stderr == "ready\n"
    assert wait_for(pidfile.exists)
    grandchild = int(pidfile.read_text())
    assert wait_for(lambda: gone(grandchild)), f"grandchild {grandchild} outlived the question"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            [sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"],
            (3, "out\n", "err\n"),
        ),
        (["/no/such/program"], (None, "", "")),
    ],
    ids=["exit-3", "not-found"],
)
def test_an_answer_keeps_the_exit_code_and_both_streams(argv, expected):
    answer = ask(argv, timeout=60.0)
    assert (answer.returncode, answer.stdout, answer.stderr) == expected
    assert bool(answer.error) is (expected[0] is None)
