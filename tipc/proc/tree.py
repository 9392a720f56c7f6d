"""Find and kill a stage's whole process tree, read from ``/proc``.

A stage's child starts its own session, so its process group holds the
launcher and every worker it forks. A descendant that calls ``setsid`` leaves
that group, and once its parent dies it is reparented away from us: only the
parent links seen *while* the tree was intact still lead to it. ``Tracker``
therefore remembers every descendant it has seen, keyed by (pid, start time)
so that a recycled pid is never mistaken for one of ours.

A descendant that leaves between two scans is caught by its environment
instead: every process inherits the variables its parent started it with, so
``kill_marked_by`` finds a stage (or a whole run) by a variable set at its start
(``RUN_MARKER``, ``PROC_MARKER``). Nothing here depends on the order of pids: the
kernel hands them out again from the bottom once it reaches ``pid_max``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass

PROC = "/proc"
LAST_PID = "/proc/sys/kernel/ns_last_pid"
RUN_MARKER = "TIPC_RUN_ID"  # the run's id, in the environment of every process the run starts
PROC_MARKER = "TIPC_STAGE_ID"  # one started process's own token, inherited by its descendants


@dataclass(frozen=True, slots=True)
class ProcInfo:
    pid: int
    ppid: int
    pgid: int
    sid: int
    start: int  # clock ticks since boot: with pid, a process's identity
    zombie: bool


def _read_stat(pid: int) -> ProcInfo | None:
    # os.open/os.read rather than open(): a scan reads every process's stat, once per
    # supervision tick, and the buffered file object costs more than the read itself.
    try:
        fd = os.open(f"{PROC}/{pid}/stat", os.O_RDONLY)
    except OSError:
        return None
    try:
        data = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
    # The command name is parenthesised and may itself contain spaces or ')'.
    rest = data[data.rindex(b")") + 2 :].split()
    return ProcInfo(
        pid=pid,
        ppid=int(rest[1]),
        pgid=int(rest[2]),
        sid=int(rest[3]),
        start=int(rest[19]),
        zombie=rest[0] in (b"Z", b"X"),
    )


def _last_pid() -> int | None:
    """The pid the kernel handed out last (None where it does not say). Only its equality with a
    stage's root is used (nothing started since), never an order of pids."""
    try:
        with open(LAST_PID, "rb") as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def snapshot() -> dict[int, ProcInfo]:
    """Every process visible in /proc now. All of them, whatever their pid: pids wrap at
    ``pid_max`` (32768 on many machines), so a stage's children may have smaller pids than it."""
    table = {}
    for name in os.listdir(PROC):
        if name.isdigit():
            info = _read_stat(int(name))
            if info is not None:
                table[info.pid] = info
    return table


def holders(path: str | os.PathLike[str]) -> dict[int, str]:
    """The processes that have ``path`` open now: pid -> its command line (shortened). A process whose
    ``/proc/<pid>/fd`` is not ours to read is not seen."""
    target, found = os.path.realpath(path), {}
    for name in os.listdir(PROC):
        if not name.isdigit():
            continue
        with contextlib.suppress(OSError):  # gone meanwhile, or not ours
            fds = os.listdir(f"{PROC}/{name}/fd")
            if any(_link(f"{PROC}/{name}/fd/{fd}") == target for fd in fds):
                with open(f"{PROC}/{name}/cmdline", "rb") as f:
                    command = " ".join(f.read().decode(errors="replace").replace("\0", " ").split())
                found[int(name)] = command if len(command) <= 120 else command[:119] + "…"
    return found


def _link(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return ""


def _environ(pid: int) -> list[bytes]:
    """The NUL-separated entries ``pid`` was started with; none if it is gone or not ours to read."""
    try:
        with open(f"{PROC}/{pid}/environ", "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def marked(variable: str, value: str, born_after: int = 0, table: dict[int, ProcInfo] | None = None) -> dict[int, int]:
    """Every live process but this one whose environment has exactly ``variable=value``: pid -> start.

    Each stat is read before its environ, so a pid recycled in between keeps the
    old start time and fails ``is_alive``: it is never signalled as ours.
    ``born_after`` (a start time): a process started earlier cannot carry a mark made
    later, so its environ is not read (the sweep after every stage stays cheap).
    ``table``: a snapshot just taken, to read /proc once for several questions.
    """
    if not value:
        raise ValueError(f"an empty {variable} marks nothing")
    entry, me = f"{variable}={value}".encode(), os.getpid()
    return {
        p.pid: p.start
        for p in (snapshot() if table is None else table).values()
        if p.start >= born_after and p.pid != me and not p.zombie and entry in _environ(p.pid)
    }


def is_alive(pid: int, start: int) -> bool:
    """True while that very process (not a recycled pid) exists and is not a zombie."""
    info = _read_stat(pid)
    return info is not None and info.start == start and not info.zombie


class Tracker:
    """Everything that belongs to one stage: its group, its session, its descendants."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.seen: dict[int, int] = {}  # pid -> start time, root excluded
        self._born: int | None = None

    def born(self, table: dict[int, ProcInfo] | None = None) -> int:
        """The root's start time (0 if unknown): every descendant starts no earlier. Asked while the
        root is unreaped, so its pid is still its own. Read when first needed, not at the start:
        reading the stat of a process that has just called exec waits for its loader (~2.5 ms)."""
        if self._born is None:
            info = table.get(self.root) if table is not None else None
            info = info or _read_stat(self.root)
            self._born = info.start if info is not None else 0
        return self._born

    def scan(self, table: dict[int, ProcInfo] | None = None) -> dict[int, int]:
        """Record the current members and return those alive now (pid -> start)."""
        table = snapshot() if table is None else table
        children: dict[int, list[int]] = {}
        for info in table.values():
            children.setdefault(info.ppid, []).append(info.pid)
        members = {p.pid for p in table.values() if p.pid != self.root and (self.root in (p.pgid, p.sid))}
        stack = list(children.get(self.root, ()))
        while stack:
            pid = stack.pop()
            members.add(pid)
            stack.extend(c for c in children.get(pid, ()) if c not in members)
        for pid in members:
            self.seen.setdefault(pid, table[pid].start)
        return {
            pid: start
            for pid, start in self.seen.items()
            if pid in table and table[pid].start == start and not table[pid].zombie
        }


def _signal_each(procs: dict[int, int], sig: int) -> None:
    for pid, start in procs.items():
        if is_alive(pid, start):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)


def _signal_all(root: int, procs: dict[int, int], sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(root, sig)
    _signal_each(procs, sig)


def _wait_gone(root_alive: Callable[[], bool], tracker: Tracker, deadline: float) -> dict[int, int]:
    """Poll until the root has exited and no tracked process lives, or the deadline."""
    while True:
        alive = tracker.scan()
        if not alive and not root_alive():
            return {}
        if time.monotonic() >= deadline:
            return alive
        time.sleep(0.02)


def kill_tree(
    tracker: Tracker, root_alive: Callable[[], bool], grace: float, table: dict[int, ProcInfo] | None = None
) -> None:
    """SIGTERM the group and every tracked process, wait ``grace``, then SIGKILL what is left.

    ``root_alive()`` says whether the (unreaped) root still runs; the caller reaps it
    afterwards, which keeps its pid, hence its group id, from being recycled meanwhile.
    A second Ctrl-C during the grace period skips straight to SIGKILL.
    """
    alive = tracker.scan(table)
    if not alive and not root_alive():
        return  # the usual clean exit: nothing left to signal
    _signal_all(tracker.root, alive, signal.SIGTERM)
    try:
        alive = _wait_gone(root_alive, tracker, time.monotonic() + grace)
    except KeyboardInterrupt:
        alive = tracker.scan()
    # Processes may fork while dying: repeat until nothing tracked is left.
    for _ in range(50):
        if not alive and not root_alive():
            return
        _signal_all(tracker.root, alive, signal.SIGKILL)
        alive = _wait_gone(root_alive, tracker, time.monotonic() + 0.1)


def _wait_dead(procs: dict[int, int], deadline: float) -> None:
    while any(is_alive(pid, start) for pid, start in procs.items()) and time.monotonic() < deadline:
        time.sleep(0.02)


def kill_marked_by(
    variable: str, value: str, grace: float, born_after: int = 0, table: dict[int, ProcInfo] | None = None
) -> int:
    """SIGTERM every process whose environment has ``variable=value``, wait ``grace``, then
    SIGKILL what is left; return how many were found. Ctrl-C during the grace skips to SIGKILL.
    """
    found = marked(variable, value, born_after, table)
    if not found:
        return 0
    _signal_each(found, signal.SIGTERM)
    with contextlib.suppress(KeyboardInterrupt):
        _wait_dead(found, time.monotonic() + grace)
    # A dying process may fork, and its child inherits the mark: rescan until none is left,
    # and until every one found has died (one that is still exiting no longer shows its mark).
    for _ in range(50):
        alive = {pid: start for pid, start in found.items() if is_alive(pid, start)} | marked(
            variable, value, born_after
        )
        if not alive:
            break
        found.update(alive)
        _signal_each(alive, signal.SIGKILL)
        _wait_dead(alive, time.monotonic() + 0.1)
    return len(found)


def sweep(tracker: Tracker, root_alive: Callable[[], bool], token: str, grace: float) -> None:
    """Leave nothing of a started process running: its tree (group, session, descendants seen),
    then whatever still carries its token (one that left the session between two scans and was
    orphaned). Called on every way out of a supervision, before the root is reaped."""
    if not root_alive() and not tracker.seen and _last_pid() == tracker.root:
        return  # no process was created on this machine since the root: nothing of it is left
    table = snapshot()
    kill_tree(tracker, root_alive, grace, table)
    kill_marked_by(PROC_MARKER, token, grace, born_after=tracker.born(table), table=table)
