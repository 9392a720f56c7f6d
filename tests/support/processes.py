"""Watching real processes from a test: is a pid still running, has a condition come true.

Shared by the executor, watchdog and ``tipc run`` tests, which all kill process
trees and must tell a dead-but-unreaped child from a live one.
"""

from __future__ import annotations

import time
from pathlib import Path


def alive(pid: int) -> bool:
    """Running: a zombie (dead, waiting for its parent or init to reap it) does not count."""
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in (b"Z", b"X")


def gone(pid: int) -> bool:
    """No such process, or only its zombie."""
    return not alive(pid)


def wait_for(predicate, seconds: float = 30.0) -> bool:
    """Poll ``predicate`` until it holds or ``seconds`` pass; its last answer. Generous: a machine
    busy with other work delays every child, and a test must not fail for that."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()
