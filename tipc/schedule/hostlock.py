"""Alone on the CPU across processes: pytest-xdist workers' CPU benchmarks.

A readers–writer lock on two files: every stage computing on the CPU holds the *host* lock
shared while it runs; a CPU benchmark holds it exclusively (stages on GPUs take no part). To
take either, a process first passes the *gate*; a stage waiting to run alone keeps the gate
while it waits, so no new stage starts meanwhile and it cannot be starved. ``flock`` locks
belong to open files, so the lock works between threads as well as processes, and the kernel
releases it when a process dies.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


def lock_path(run_id: str) -> Path:
    """One lock per run, shared by its xdist workers (they carry the controller's run id)."""
    return Path(tempfile.gettempdir()) / f"tipc-{run_id}.host"


def remove(path: Path) -> None:
    for p in (path, path.with_suffix(".gate")):
        p.unlink(missing_ok=True)


@contextlib.contextmanager
def _flocked(path: Path, mode: int) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, mode)
        yield
    finally:
        os.close(fd)  # closing releases the lock


@contextlib.contextmanager
def hold(path: Path, alone: bool) -> Iterator[None]:
    """Run the body beside other holders, or (``alone``) with no other holder anywhere."""
    with contextlib.ExitStack() as stack:
        with _flocked(path.with_suffix(".gate"), fcntl.LOCK_EX):
            stack.enter_context(_flocked(path, fcntl.LOCK_EX if alone else fcntl.LOCK_SH))
        yield
