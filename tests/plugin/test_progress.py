"""``pytest tipc`` while a stage runs: a status line on a terminal, a heartbeat line off one, neither with ``-q``."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import time

import pytest

from tests.plugin.conftest import Tipc

TRAIN = "fake_rec: norm_train-gpus_-1-fp32::train"
SLOW_TRAIN = "train:sleep=2.5"  # past the 1 s interval, twice


def test_off_a_terminal_a_heartbeat_line_names_the_running_stage(
    tipc_run: Tipc, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIPC_FAKE", SLOW_TRAIN)
    first = tipc_run.run("--tipc-heartbeat", "1")
    first.assert_outcomes(passed=5)
    beats = [line for line in first.outlines if line.startswith(f"tipc: still running {TRAIN}: ")]
    assert len(beats) >= 2, first.outlines
    assert "[0/5 stages done" in beats[0] and " of ~" not in beats[0]  # never ran: no estimate yet
    second = tipc_run.run("--tipc-heartbeat", "1")
    beats = [line for line in second.outlines if line.startswith(f"tipc: still running {TRAIN}: ")]
    assert beats and all(" of ~3s" in line or " of ~2s" in line for line in beats), beats  # the first run's 2.5 s


@pytest.mark.parametrize("quiet", [("-q",), ("--tipc-heartbeat", "0")], ids=["quiet", "heartbeat-0"])
def test_no_heartbeat_with_q_or_a_zero_interval(
    tipc_run: Tipc, monkeypatch: pytest.MonkeyPatch, quiet: tuple[str, ...]
) -> None:
    monkeypatch.setenv("TIPC_FAKE", "train:sleep=1.5")
    args = ("--tipc-heartbeat", "1", *quiet) if quiet == ("-q",) else quiet
    result = tipc_run.run(*args)
    result.assert_outcomes(passed=5)
    assert not [line for line in result.outlines if "still running" in line]


def _on_a_terminal(tipc_run: Tipc, *extra: str) -> str:
    """pytest's output on a pseudo-terminal (200 columns), as the terminal received it."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 200, 0, 0))
    env = {**os.environ, "TIPC_FAKE": SLOW_TRAIN}
    env.pop("PYTEST_ADDOPTS", None)
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *tipc_run.args(*extra)]
    proc = subprocess.Popen(argv, cwd=tipc_run.pytester.path, env=env, stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    received = bytearray()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not data:
            break
        received += data
    proc.wait(timeout=30)
    os.close(master)
    return received.decode(errors="replace")


def test_on_a_terminal_a_status_line_is_drawn_below_pytests_line_and_erased(tipc_run: Tipc) -> None:
    shown = _on_a_terminal(tipc_run)
    assert "5 passed" in shown
    # Drawn on the line below (a line break, then erase-line and the text), the cursor put back.
    assert f"\n\r\x1b[2K{TRAIN}: 1s" in shown, shown
    assert "[0/5 stages done" in shown
    assert "tipc: still running" not in shown  # no heartbeat on a terminal
    quiet = _on_a_terminal(tipc_run, "-q")
    assert "passed" in quiet and TRAIN not in quiet
