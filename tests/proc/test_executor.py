"""The executor against real child processes (``sys.executable -c``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.support.processes import gone, wait_for
from tipc.proc.child import Ending, child_env
from tipc.proc.executor import ExecRequest, ProcessExecutor


def request(tmp_path: Path, code: str, **kw) -> ExecRequest:
    return ExecRequest(
        argv=(sys.executable, "-c", code),
        cwd=str(tmp_path),
        env=kw.pop("env", {}),
        log=tmp_path / "logs" / "stage.log",
        **kw,
    )


# A child that ignores SIGTERM and spawns two grandchildren that ignore it too: one in its
# process group, one that escapes with setsid(). It writes their pids, then waits forever.
TREE = """
import os, signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
stay = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"
escape = "import os, signal, time; os.setsid(); signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"
a = subprocess.Popen([sys.executable, "-c", stay])
b = subprocess.Popen([sys.executable, "-c", escape])
time.sleep(0.3)
open(sys.argv[1], "w").write(f"{os.getpid()} {a.pid} {b.pid}")
print("tree ready", flush=True)
time.sleep(600)
"""


def tree_pids(path: Path) -> list[int]:
    assert wait_for(path.exists), "the child never wrote its pids"
    return [int(p) for p in path.read_text().split()]


def test_timeout_kills_group_and_setsid_escapee(tmp_path):
    pidfile = tmp_path / "pids"
    req = ExecRequest(
        argv=(sys.executable, "-c", TREE, str(pidfile)), cwd=str(tmp_path), env={}, log=tmp_path / "s.log", timeout=1.5
    )
    result = ProcessExecutor(grace=0.3).run(req)
    assert result.ending is Ending.TIMEOUT
    assert result.returncode == -signal.SIGKILL  # it ignored SIGTERM
    pids = tree_pids(pidfile)
    assert len(pids) == 3
    assert all(wait_for(lambda p=p: gone(p)) for p in pids), [p for p in pids if not gone(p)]
    assert "timed out after 1.5 s" in result.reason
    assert "tree ready" in req.log.read_text()


def test_clean_exit_sweeps_leftover_escapee(tmp_path):
    pidfile = tmp_path / "pid"
    code = (
        "import subprocess, sys, time\n"
        "b = subprocess.Popen([sys.executable, '-c', 'import os, time; os.setsid(); time.sleep(600)'])\n"
        "open(sys.argv[1], 'w').write(str(b.pid)); time.sleep(0.5)\n"
    )
    req = ExecRequest(
        argv=(sys.executable, "-c", code, str(pidfile)), cwd=str(tmp_path), env={}, log=tmp_path / "s.log"
    )
    result = ProcessExecutor(grace=0.3).run(req)
    assert (result.ending, result.returncode) == (Ending.EXITED, 0)
    (pid,) = tree_pids(pidfile)
    assert wait_for(lambda: gone(pid))


def test_hang_detected_when_log_stops_growing(tmp_path):
    code = "import time; print('started', flush=True); time.sleep(60)"
    t0 = time.monotonic()
    result = ProcessExecutor(grace=0.2).run(request(tmp_path, code, hang_timeout=0.6, timeout=30))
    assert result.ending is Ending.HUNG
    assert time.monotonic() - t0 < 10
    assert "no new output for 0.6 s" in result.reason


def test_steady_output_is_not_a_hang(tmp_path):
    code = "import time\nfor i in range(12): print(i, flush=True); time.sleep(0.1)"
    result = ProcessExecutor(grace=0.2).run(request(tmp_path, code, hang_timeout=0.6))
    assert (result.ending, result.returncode) == (Ending.EXITED, 0)


@pytest.mark.parametrize(
    ("code", "returncode"),
    [
        ("print('hi')", 0),
        ("import sys; sys.exit(3)", 3),
    ],
    ids=["ok", "exit3"],
)
def test_exit_code_and_log_header_footer(tmp_path, code, returncode):
    req = request(tmp_path, code, title="chain::train")
    result = ProcessExecutor(grace=0.2).run(req)
    assert (result.ending, result.returncode) == (Ending.EXITED, returncode)
    lines = req.log.read_text().splitlines()
    assert lines[0] == "# tipc stage: chain::train"
    assert lines[1].startswith("# command: ") and "-c" in lines[1]
    assert lines[2] == f"# cwd: {tmp_path}"
    assert lines[3].startswith("# start: ")
    assert lines[-1].startswith(f"# exit code: {returncode} · duration: ")


def test_env_overrides_and_removal(tmp_path):
    code = "import os; print(os.environ.get('A'), os.environ.get('B'), os.environ.get('PYTHONUNBUFFERED'))"
    base = {"B": "inherited", "PATH": os.environ["PATH"]}
    req = request(tmp_path, code, env={"A": "set", "B": None})
    ProcessExecutor(grace=0.2, base_env=base).run(req)
    assert "set None 1" in req.log.read_text()
    assert "# env: A=set -u B" in req.log.read_text()


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({}, {"X": "1", "PYTHONUNBUFFERED": "1"}),
        ({"X": None}, {"PYTHONUNBUFFERED": "1"}),
        ({"PYTHONUNBUFFERED": None, "Y": "2"}, {"X": "1", "Y": "2"}),
    ],
    ids=["inherit", "unset", "unbuffered-removable"],
)
def test_child_env(overrides, expected):
    assert child_env(overrides, {"X": "1"}) == expected


def test_live_tee_receives_output(tmp_path):
    seen = []
    code = "import time\nfor i in range(3): print('line', i, flush=True); time.sleep(0.1)"
    ProcessExecutor(grace=0.2, live=seen.append).run(request(tmp_path, code))
    assert b"".join(seen).decode().split("\n")[:3] == ["line 0", "line 1", "line 2"]


def test_missing_interpreter_is_not_started(tmp_path):
    req = ExecRequest(
        argv=(str(tmp_path / "no-such-python"), "x.py"), cwd=str(tmp_path), env={}, log=tmp_path / "s.log"
    )
    result = ProcessExecutor(grace=0.2).run(req)
    assert result.ending is Ending.NOT_STARTED
    assert "cannot start" in result.reason and "no-such-python" in result.reason


def test_sigint_stops_the_group(tmp_path):
    pidfile = tmp_path / "pids"
    req = ExecRequest(
        argv=(sys.executable, "-c", TREE, str(pidfile)), cwd=str(tmp_path), env={}, log=tmp_path / "s.log", timeout=60
    )
    timer = threading.Thread(target=lambda: (wait_for(pidfile.exists), os.kill(os.getpid(), signal.SIGINT)))
    timer.start()
    result = ProcessExecutor(grace=0.3).run(req)
    timer.join()
    assert result.ending is Ending.INTERRUPTED
    assert all(wait_for(lambda p=p: gone(p)) for p in tree_pids(pidfile))


def test_markers_reach_grandchildren_but_not_the_header(tmp_path):
    code = (
        "import subprocess, sys\n"
        "show = \"import os; print('marks', os.environ.get('TIPC_RUN_ID'), os.environ['TIPC_STAGE_ID'])\"\n"
        "subprocess.run([sys.executable, '-c', show])\n"
    )
    base = {"PATH": os.environ["PATH"]}

    def marks(**kw) -> list[str]:
        req = request(tmp_path, code, env={"A": "1"}, **kw)
        ProcessExecutor(grace=0.2, base_env=base).run(req)
        text = req.log.read_text()
        assert "# env: A=1\n" in text and "TIPC_" not in "".join(
            row for row in text.splitlines() if row.startswith("#")
        )
        (line,) = [row for row in text.splitlines() if row.startswith("marks ")]
        return line.split()[1:]

    (run, first), (_, second) = marks(marker="run-42"), marks(marker="run-42")
    assert run == "run-42"
    assert len(first) == 16 and first != second  # a token of its own for every stage
    assert marks()[0] == "None"


# Immediately before exiting 0, the child leaves a daemon that ignores SIGTERM: forked into a
# session of its own, either directly or by a double fork. The child exits as soon as the
# daemon has written its pid, so the tree's scans rarely see the daemon while it is linked to us.
DAEMON = """
import os, signal, sys, time
pidfile = sys.argv[1]
if os.fork() == 0:
    os.setsid()
    if sys.argv[2] == "double-fork" and os.fork() != 0:
        os._exit(0)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    open(pidfile + ".tmp", "w").write(str(os.getpid()))
    os.rename(pidfile + ".tmp", pidfile)
    time.sleep(60)
    os._exit(0)
while not os.path.exists(pidfile):
    time.sleep(0.001)
"""


@pytest.mark.parametrize("how", ["setsid", "double-fork"])
def test_daemon_started_just_before_a_clean_exit_is_swept(tmp_path, how):
    executor = ProcessExecutor(grace=0.2)
    for i in range(5):
        pidfile = tmp_path / f"daemon{i}"
        req = ExecRequest(
            argv=(sys.executable, "-c", DAEMON, str(pidfile), how),
            cwd=str(tmp_path),
            env={},
            log=tmp_path / f"s{i}.log",
        )
        result = executor.run(req)
        assert (result.ending, result.returncode) == (Ending.EXITED, 0)
        pid = int(pidfile.read_text())
        assert gone(pid), f"run {i}: daemon {pid} outlived its stage"


@pytest.fixture
def spawned(monkeypatch) -> list[int]:
    """The pids of the processes started from here on, in order."""
    pids: list[int] = []

    class Spied(subprocess.Popen):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            pids.append(self.pid)

    monkeypatch.setattr(subprocess, "Popen", Spied)
    return pids


def test_the_harness_yields_its_cpu_to_the_child_it_just_spawned(tmp_path, monkeypatch, spawned):
    """Once per start, right after the spawn (benchmarks/spawn_yield.py: why)."""
    children_at_yield: list[int] = []
    monkeypatch.setattr(os, "sched_yield", lambda: children_at_yield.append(len(spawned)))
    assert ProcessExecutor(grace=0.2).run(request(tmp_path, "import time; time.sleep(0.1)")).returncode == 0
    assert children_at_yield == [1]


def test_a_ctrl_c_as_the_harness_yields_kills_the_child_it_just_spawned(tmp_path, monkeypatch, spawned):
    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "sched_yield", interrupted)
    result = ProcessExecutor(grace=0.2).run(request(tmp_path, "import time; time.sleep(60)"))
    assert result.ending is Ending.INTERRUPTED
    assert len(spawned) == 1 and gone(spawned[0])
