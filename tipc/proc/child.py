"""Start one program and supervise it to its end: the one way tipc runs a process.

Stages (``tipc.proc.executor``) and questions (``ask``: the interpreter probe, the doctor's
probes) both come here, so both have the same kill semantics. Each child starts in a session
of its own, with no stdin, its output in files (never a pipe: a dead harness cannot block or
SIGPIPE it, and a grandchild that keeps a pipe open cannot hang its reader), and a token of its
own in its environment (``PROC_MARKER``), inherited by its descendants. It is watched for its
exit, a time limit, an output that stops growing (a hang) and a stop asked from another thread.
Whatever ends the watch (an exit, a limit, a Ctrl-C, an exception in the caller's ``tick``),
its tree is swept and the child reaped in a ``finally``: nothing it started outlives it.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import select
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import IO

from tipc.proc.tree import PROC_MARKER, Tracker, sweep
from tipc.proc.treemem import TreePeak

GRACE = 3.0  # seconds a process tree gets between SIGTERM and SIGKILL, unless the caller says otherwise
VMSTAT = Path("/proc/vmstat")
_OOM_KILL = re.compile(rb"^oom_kill (\d+)$", re.MULTILINE)


class Stopped(KeyboardInterrupt):
    """A signal that asks the whole run to stop (SIGTERM: a scheduler's cancel or time limit), raised
    like Ctrl-C; the stage it ended says which signal it was (``Exit.stopped_by``)."""

    def __init__(self, signal_name: str) -> None:
        super().__init__(signal_name)
        self.signal_name = signal_name


class Ending(str, Enum):
    EXITED = "exited"
    TIMEOUT = "timeout"
    HUNG = "hung"
    INTERRUPTED = "interrupted"
    ERROR = "error"  # the supervision itself failed (the reason says how); the tree was killed
    ABORTED = "aborted"  # stopped from outside the stage: a node of its job went silent (the reason says which)
    NOT_STARTED = "not_started"


@dataclass(frozen=True, slots=True)
class Limits:
    """What ends a child besides its exit."""

    timeout: float | None = None  # seconds of wall time
    hang_timeout: float | None = None  # seconds without growth of ``activity``
    grace: float = GRACE


@dataclass(frozen=True, slots=True)
class Exit:
    """How a supervised child ended."""

    ending: Ending
    returncode: int | None
    duration: float  # seconds from the start to its exit (or to the kill), not counting the sweep
    reason: str = ""
    peak_rss_kb: int | None = None  # the largest resident size of the child or a descendant it waited for
    oom_killed: bool = False  # killed by a signal while the kernel's OOM kill count rose
    tree_peak_kb: int | None = None  # the largest sum over its live process tree (tipc.proc.treemem)
    stopped_by: str = ""  # the signal that stopped the run while it ran ("SIGTERM"); "" for Ctrl-C or none


def oom_kills() -> int | None:
    """The kernel's count of OOM kills since boot; None where it is not published."""
    try:
        found = _OOM_KILL.search(VMSTAT.read_bytes())
        return int(found[1]) if found else None
    except (OSError, ValueError):
        return None


def child_env(overrides: Mapping[str, str | None], base: Mapping[str, str]) -> dict[str, str]:
    """``base`` with the overrides applied (None removes a variable).

    Python children get PYTHONUNBUFFERED unless told otherwise: their stdout is a file, hence
    block-buffered, and a log that only grows in 8 KiB bursts would look hung and would tee late.
    """
    env = dict(base)
    env.setdefault("PYTHONUNBUFFERED", "1")
    for key, value in overrides.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def niced(argv: list[str]) -> list[str]:
    """At the lowest priority where ``nice`` exists: a question that runs beside a stage must not slow it."""
    nice = shutil.which("nice")
    return [nice, "-n", "19", *argv] if nice else argv


def _exited(pid: int) -> bool:
    """Has the child exited? Asked without reaping it, so that its pid (its group's id) stays ours."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def _reap(proc: subprocess.Popen[bytes]) -> int | None:
    """Wait for the child and return its peak resident size (KiB): ``wait4`` reports it for this
    child alone (and the descendants it waited for), where ``getrusage`` mixes every stage."""
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    except ChildProcessError:  # reaped already
        proc.wait()
        return None
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss or None


class _ExitWaiter:
    """Block until the child exits (without reaping it) or a timeout passes."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._poll = None
        if hasattr(os, "pidfd_open"):
            self._fd = os.pidfd_open(pid)
            self._poll = select.poll()
            self._poll.register(self._fd, select.POLLIN)

    def wait(self, seconds: float) -> bool:
        if self._poll is not None:
            return bool(self._poll.poll(max(0, int(seconds * 1000))))
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if _exited(self.pid):
                return True
            time.sleep(0.005)
        return _exited(self.pid)

    def close(self) -> None:
        if self._poll is not None:
            os.close(self._fd)


Tick = Callable[[], None]


def run_child(
    argv: tuple[str, ...] | list[str],
    *,
    cwd: str | None,
    env: Mapping[str, str],
    stdout: IO[bytes] | int,
    stderr: IO[bytes] | int,
    limits: Limits,
    activity: Callable[[], int] | None = None,
    tick: Tick | None = None,
    stop: threading.Event | None = None,
    abort: Callable[[], str] | None = None,
) -> Exit:
    """Run ``argv`` to its end under ``limits``; raises only OSError when it cannot start.

        ``activity``: a number that grows whenever the child writes what we can see (for the hang
        limit); ``tick``: called between waits and once at the end (the live tee); ``stop``: set from
        another thread, it ends the child as INTERRUPTED; ``abort``: asked between waits, a reason it
    gives ends the child as ABORTED. A Ctrl-C ends it as INTERRUPTED too (the
        caller re-raises it); an exception from ``tick`` or ``activity`` as ERROR.
    """
    token = secrets.token_hex(8)
    t0 = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        start_new_session=True,
        env={**env, PROC_MARKER: token},
    )
    ending, reason, ended = Ending.INTERRUPTED, "interrupted: process group stopped", t0
    tracker = Tracker(proc.pid)
    memory = TreePeak()
    waiter = None
    oom_before = None
    stopped_by = ""
    try:
        # The child is queued on the harness's CPU, and the scheduler may leave it there behind the
        # harness's next work while another CPU idles (benchmarks/spawn_yield.py).
        os.sched_yield()
        waiter = _ExitWaiter(proc.pid)
        oom_before = oom_kills()
        ending, reason = _watch(
            waiter,
            t0,
            limits,
            activity,
            tick,
            stop,
            lambda: memory.sample(lambda: (proc.pid, *tracker.scan())),
            abort,
        )
    except KeyboardInterrupt as exc:
        stopped_by = exc.signal_name if isinstance(exc, Stopped) else ""
    except Exception as exc:  # noqa: BLE001 - whatever broke the watch, the record says so and the tree goes
        ending, reason = Ending.ERROR, f"supervision failed ({type(exc).__name__}: {exc}): process group killed"
    finally:
        ended = time.monotonic()  # its duration ends here, not after the sweep or a kill's grace
        grace = 0.0 if ending is Ending.EXITED else limits.grace
        try:
            sweep(tracker, lambda: not _exited(proc.pid), token, grace)
        finally:
            peak = _reap(proc)
            if waiter is not None:
                waiter.close()
        if tick is not None and ending is not Ending.ERROR:
            with contextlib.suppress(Exception):
                tick()  # the last of its output
    code = proc.returncode
    oom_after = oom_kills() if code is not None and code < 0 else None
    oom = oom_before is not None and oom_after is not None and oom_after > oom_before
    return Exit(ending, code, ended - t0, reason, peak, oom, memory.peak_kb, stopped_by)


def _watch(
    waiter: _ExitWaiter,
    t0: float,
    limits: Limits,
    activity: Callable[[], int] | None,
    tick: Tick | None,
    stop: threading.Event | None,
    sample: Callable[[], None],
    abort: Callable[[], str] | None = None,
) -> tuple[Ending, str]:
    deadline = t0 + limits.timeout if limits.timeout else float("inf")
    hang = limits.hang_timeout if activity is not None else None
    last_activity, last_change = -1, t0
    # An exit ends the wait at once (pidfd); the tick paces the tee and the clocks. The tree is read
    # at the end only (one /proc listing): whatever left it meanwhile still carries the token.
    wait, max_wait = 0.05, (0.2 if tick is not None else 0.5)
    while True:
        now = time.monotonic()
        hang_at = last_change + hang if hang else float("inf")
        if waiter.wait(min(wait, max(0.0, deadline - now), max(0.0, hang_at - now))):
            return Ending.EXITED, ""
        wait = min(wait * 2, max_wait)
        if stop is not None and stop.is_set():
            return Ending.INTERRUPTED, "interrupted: the run was stopped"
        if abort is not None and (why := abort()):
            return Ending.ABORTED, f"stopped: {why}: process group killed"
        if tick is not None:
            tick()
        sample()  # the tree's memory, every TreePeak.every seconds
        now = time.monotonic()
        if now >= deadline:
            return Ending.TIMEOUT, f"timed out after {limits.timeout:g} s: process group killed"
        if hang and activity is not None:
            seen = activity()
            if seen != last_activity:
                last_activity, last_change = seen, now
            elif now - last_change >= hang:
                return Ending.HUNG, f"hung: no new output for {hang:g} s: process group killed"


@dataclass(frozen=True, slots=True)
class Answer:
    """What a bounded question to a program gave: its exit code and output, or why there is none."""

    returncode: int | None = None  # None: it did not start, or did not end within the timeout
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: str = ""  # why it could not start

    def last_line(self, text: str) -> str:
        """The last line of ``text`` (its ``stdout`` or ``stderr``), "no output" when it has none."""
        return (text.strip().splitlines() or ["no output"])[-1]


def ask(argv: list[str], timeout: float, grace: float = 1.0) -> Answer:
    """Ask a program a question: no stdin, its output kept, bounded by ``timeout``; never raises.
    Supervised like a stage (``run_child``): on the timeout its whole tree is killed."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            done = run_child(
                argv, cwd=None, env=dict(os.environ), stdout=out, stderr=err, limits=Limits(timeout, None, grace)
            )
        except OSError as exc:
            return Answer(error=exc.strerror or str(exc))
        if done.ending is Ending.INTERRUPTED:
            raise KeyboardInterrupt(done.reason)
        if done.ending is not Ending.EXITED:
            return Answer(
                timed_out=done.ending is Ending.TIMEOUT, error="" if done.ending is Ending.TIMEOUT else done.reason
            )
        out.seek(0)
        err.seek(0)
        text = (out.read().decode(errors="replace"), err.read().decode(errors="replace"))
    return Answer(done.returncode, *text)
