"""The run marker's sweep and the watchdog, against real processes (``sys.executable -c``)."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.support.processes import gone, wait_for
from tipc.proc.tree import RUN_MARKER
from tipc.proc.watchdog import kill_marked, start_watchdog

ROOT = str(Path(__file__).resolve().parents[2])

# Says "ready" once its SIGTERM disposition is set, so that a test never signals it too early.
SLEEPER = """
import signal, sys, time
if sys.argv[1] == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("ready", flush=True)
time.sleep(60)
"""


@pytest.fixture
def marker() -> str:
    return f"test-{uuid.uuid4().hex}"


@pytest.fixture
def sleepers():
    """Start sleepers, marked or not; whatever still runs at the end of the test is killed."""
    procs: list[subprocess.Popen] = []

    def start(marker: str = "", stubborn: bool = False) -> subprocess.Popen:
        env = {k: v for k, v in os.environ.items() if k != RUN_MARKER} | ({RUN_MARKER: marker} if marker else {})
        proc = subprocess.Popen(
            [sys.executable, "-c", SLEEPER, "stubborn" if stubborn else "meek"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
        )
        procs.append(proc)
        assert proc.stdout.readline() == b"ready\n"
        return proc

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()
        proc.stdout.close()


def read_pid(path: Path) -> int:
    assert wait_for(lambda: path.exists() and path.read_text().strip()), f"nobody wrote {path.name}"
    return int(path.read_text())


def test_kill_marked_kills_exactly_the_marked(marker, sleepers):
    ours = [sleepers(marker), sleepers(marker, stubborn=True)]
    others = [sleepers(), sleepers(marker + "x"), sleepers(marker[:-1])]
    assert kill_marked(marker, grace=0.3) == 2
    assert [p.poll() for p in ours] == [-signal.SIGTERM, -signal.SIGKILL]  # dead on return
    assert [p.poll() for p in others] == [None, None, None]
    assert kill_marked(marker, grace=0.3) == 0


def test_empty_marker_is_refused():
    with pytest.raises(ValueError):
        kill_marked("")
    with pytest.raises(ValueError):
        start_watchdog("")


# A harness: starts its watchdog, then one marked stage through the executor, then waits.
HARNESS = """
import sys, threading, time
from pathlib import Path
from tipc.proc.executor import ExecRequest, ProcessExecutor
from tipc.proc.watchdog import start_watchdog
marker, out = sys.argv[1], Path(sys.argv[2])
watchdog = start_watchdog(marker, grace=0.3)
(out / "watchdog").write_text(str(watchdog.pid))
stage = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)"
request = ExecRequest(argv=(sys.executable, "-c", stage, str(out / "stage")), cwd=str(out), env={},
                      log=out / "stage.log", marker=marker)
threading.Thread(target=ProcessExecutor(grace=0.2).run, args=(request,), daemon=True).start()
time.sleep(60)
"""


def test_watchdog_kills_the_stages_of_a_sigkilled_harness(tmp_path, marker):
    harness = subprocess.Popen(
        [sys.executable, "-c", HARNESS, marker, str(tmp_path)],
        env={**os.environ, "PYTHONPATH": ROOT},
        stdin=subprocess.DEVNULL,
    )
    watchdog = 0
    try:
        stage, watchdog = read_pid(tmp_path / "stage"), read_pid(tmp_path / "watchdog")
        assert not gone(stage)
        harness.kill()  # its executor dies with it: only the watchdog is left to act
        harness.wait()
        assert wait_for(lambda: gone(stage), 5), "the marked stage outlived its SIGKILLed harness"
        assert wait_for(lambda: gone(watchdog), 5), "the watchdog stayed after its sweep"
    finally:
        harness.kill()
        harness.wait()
        kill_marked(marker, grace=0)
        if watchdog and not gone(watchdog):
            os.kill(watchdog, signal.SIGKILL)


def test_clean_close_kills_nothing_and_reaps_the_watchdog(marker, sleepers):
    watchdog = start_watchdog(marker, grace=0.3)
    sleeper = sleepers(marker)
    watchdog.close()
    assert not Path(f"/proc/{watchdog.pid}").exists()  # exited and reaped, not a zombie
    assert sleeper.poll() is None
    watchdog.close()  # a second close is harmless


def test_clean_with_block_kills_nothing(marker, sleepers):
    with start_watchdog(marker, grace=0.3) as watchdog:
        sleeper = sleepers(marker)
    assert not Path(f"/proc/{watchdog.pid}").exists()
    assert sleeper.poll() is None


# The exception path leaves the watchdog unreaped (it outlives us on purpose), so its Popen warns when
# collected; tipc.proc.watchdog owns that, the test only checks the sweep.
def test_with_block_ended_by_an_exception_sweeps(marker, sleepers):
    sleeper = sleepers(marker)
    with pytest.raises(RuntimeError), start_watchdog(marker, grace=0.3) as watchdog:
        raise RuntimeError("the run failed")
    assert wait_for(lambda: sleeper.poll() is not None, 5)
    assert wait_for(lambda: gone(watchdog.pid), 5)


def test_watchdog_holds_none_of_our_descriptors(marker):
    read_end, write_end = os.pipe()
    os.set_inheritable(write_end, True)
    try:
        with start_watchdog(marker, grace=0.3):
            os.close(write_end)
            # The pipe ends as soon as we close our write end: the watchdog holds no copy of it.
            assert select.select([read_end], [], [], 2.0)[0] and os.read(read_end, 1) == b""
    finally:
        os.close(read_end)
