"""The one place that starts processes: run an argv into a log file, supervised.

Each child starts in its own session, writes straight into its log file (a
file, never a pipe, so a dead harness cannot block or SIGPIPE it), and is
watched for three things: exit, the stage's time limit, and a log that stops
growing (a hang). Every way out of a stage other than a clean exit kills the
whole tree (see ``proctree``); a clean exit still sweeps up anything the child
left running, so no process outlives its stage.

Each child's environment also carries the run's id and a token of its own
(see ``watchdog``), inherited by all its descendants: the sweep at the end
finds by that token a process that escaped between two scans of the tree.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import select
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from functools import partial
from pathlib import Path
from types import FrameType
from typing import BinaryIO, NoReturn, Protocol

from tipc.run import idle
from tipc.run.endings import oom_kills
from tipc.run.proctree import Tracker, born_nothing, kill_marked_by, kill_tree, snapshot
from tipc.run.treemem import TreePeak
from tipc.run.watchdog import RUN_MARKER, STAGE_MARKER

LiveSink = Callable[[bytes], None]
SPARE_LOG = ".tipc_spare_log"  # made empty while a stage runs, renamed into the next stage's log
GRACE = 3.0  # seconds a stage's processes get between SIGTERM and SIGKILL, unless the front says otherwise


class Ending(str, Enum):
    EXITED = "exited"
    TIMEOUT = "timeout"
    HUNG = "hung"
    INTERRUPTED = "interrupted"
    NOT_STARTED = "not_started"


@dataclass(frozen=True, slots=True)
class ExecRequest:
    argv: tuple[str, ...]
    cwd: str
    env: Mapping[str, str | None]  # overrides; None = remove from the environment
    log: Path
    timeout: float | None = None  # seconds of wall time before the tree is killed
    hang_timeout: float | None = None  # seconds without new output before the tree is killed
    watch: tuple[Path, ...] = ()  # more files/dirs whose growth counts as output (worker logs)
    title: str = ""
    marker: str = ""  # the run's id, set as RUN_MARKER in the stage's environment (not in the header)


@dataclass(frozen=True, slots=True)
class ExecResult:
    ending: Ending
    returncode: int | None
    start: float  # unix time
    duration: float  # seconds
    reason: str = ""
    peak_rss_kb: int | None = None  # the largest resident size of the child or a descendant it waited for
    oom_killed: bool = False  # killed by a signal while the kernel's OOM kill count rose
    tree_peak_kb: int | None = None  # the largest sum over the stage's live process tree (tipc.run.treemem)

    @property
    def stage_peak_kb(self) -> int | None:
        """The stage's memory: its tree's, or the root's own where that is larger (a peak between
        two samples) or the tree was never sampled (a stage shorter than a tick)."""
        known = [kb for kb in (self.tree_peak_kb, self.peak_rss_kb) if kb is not None]
        return max(known) if known else None


OnExit = Callable[[], None]


class Started(Protocol):
    def finish(self, stop: bool = False, on_clean_exit: OnExit | None = None) -> ExecResult:
        """Supervise the stage to its end; ``stop``: end it now, as INTERRUPTED (its tree killed).
        ``on_clean_exit``: called once the child has exited 0 (the next stage may start then): at
        once when nothing was started since the child, else after what it left was swept."""


class Executor(Protocol):
    def start(self, request: ExecRequest) -> Started:
        """Start the stage's process and return at once: the caller may do other work while it
        runs (the previous stage's records), then ``finish`` it."""

    def interrupt(self) -> None:
        """End what is started now or later as INTERRUPTED, from another thread (a scheduler's
        worker threads get no KeyboardInterrupt: only the main thread does)."""

    def close(self) -> None:
        """The plan's last stage has ended: release what was kept for the next one."""


def child_env(overrides: Mapping[str, str | None], base: Mapping[str, str]) -> dict[str, str]:
    """``base`` with the stage's overrides applied (None removes a variable).

    Python children get PYTHONUNBUFFERED unless the stage says otherwise: their
    stdout is a file, hence block-buffered, and a log that only grows in 8 KiB
    bursts would look hung and would tee late.
    """
    env = dict(base)
    env.setdefault("PYTHONUNBUFFERED", "1")
    for key, value in overrides.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def _marks(req: ExecRequest, stage: str) -> dict[str, str]:
    """The variables that mark the stage's processes, after its overrides so that they win."""
    return {STAGE_MARKER: stage, **({RUN_MARKER: req.marker} if req.marker else {})}


def _header(req: ExecRequest, start: float) -> bytes:
    lines = [f"# tipc stage: {req.title}"] if req.title else []
    lines += [f"# command: {shlex.join(req.argv)}", f"# cwd: {req.cwd}"]
    if req.env:
        lines.append("# env: " + " ".join(f"{k}={v}" if v is not None else f"-u {k}" for k, v in req.env.items()))
    lines.append(f"# start: {datetime.fromtimestamp(start).isoformat(timespec='seconds')}")
    return ("\n".join(lines) + "\n").encode()


def _footer(result: ExecResult) -> bytes:
    text = f"\n# exit code: {result.returncode} · duration: {result.duration:.3f} s"
    if result.ending is not Ending.EXITED:
        text += f" · {result.ending.value}: {result.reason}"
    return (text + "\n").encode()


def _activity(log_fd: int, watch: tuple[Path, ...]) -> int:
    """A number that grows whenever the stage writes anything we can see."""
    total = os.fstat(log_fd).st_size
    for path in watch:
        with contextlib.suppress(OSError):
            if path.is_dir():
                total += sum(p.stat().st_size for p in path.iterdir() if p.is_file())
            else:
                total += path.stat().st_size
    return total


def _exited(pid: int) -> bool:
    """Has the child exited? Asked without reaping it, so that its pid (its group's id) stays ours."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def _exit_code(pid: int) -> int | None:
    """The exit code of a child that has exited, read without reaping it (None: killed by a signal)."""
    info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    return info.si_status if info is not None and info.si_code == os.CLD_EXITED else None


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


class _Tee:
    """Copy what the child appends to its log to a live sink, from a second handle."""

    def __init__(self, log: Path, offset: int, sink: LiveSink | None) -> None:
        self._sink = sink
        self._file = open(log, "rb") if sink else None  # noqa: SIM115 - closed by close()
        if self._file:
            self._file.seek(offset)

    def pump(self) -> None:
        if self._file and self._sink and (data := self._file.read()):
            self._sink(data)

    def close(self) -> None:
        if self._file:
            self.pump()
            self._file.close()


def _close_log(out: BinaryIO, result: ExecResult) -> None:
    with contextlib.suppress(OSError):  # the footer is a courtesy; the record tells the story
        out.write(_footer(result))
        out.flush()
    with contextlib.suppress(OSError):  # a full disk: what could not be flushed is lost
        out.close()


class _Ended:
    """A stage that could not start: its result is known at once."""

    def __init__(self, result: ExecResult) -> None:
        self.result = result

    def finish(self, stop: bool = False, on_clean_exit: OnExit | None = None) -> ExecResult:
        return self.result


class _Launch:
    """A started stage: its process, its log, and what watches it until ``finish``. Whoever holds
    one must finish it, on every path (``stop=True`` on the way out of an error or a Ctrl-C)."""

    def __init__(
        self,
        executor: ProcessExecutor,
        proc: subprocess.Popen[bytes],
        out: BinaryIO,
        req: ExecRequest,
        clocks: tuple[float, float],  # unix time and monotonic time of the start
        stage: str,
        oom_before: int | None,
    ) -> None:
        self._executor = executor
        self._proc = proc
        self._out = out
        self._req = req
        self._start, self._t0 = clocks
        self._stage = stage
        self._oom_before = oom_before
        self._ended = 0.0
        self._tracker = Tracker(proc.pid)
        self._memory = TreePeak()
        self._waiter = _ExitWaiter(proc.pid)
        self._tee = _Tee(req.log, out.tell(), executor.live)
        executor.running.add(proc.pid)

    def finish(self, stop: bool = False, on_clean_exit: OnExit | None = None) -> ExecResult:
        try:
            ending, reason, peak = self._supervise(stop, on_clean_exit)
        except BaseException:  # from on_clean_exit (a Ctrl-C, a full disk): the child was swept and reaped
            with contextlib.suppress(OSError):
                self._out.close()
            raise
        code = self._proc.returncode
        # Only a death by a signal is the OOM killer's: the counter (~0.15 ms a read) is read for it alone.
        oom_after = oom_kills() if code is not None and code < 0 else None
        result = ExecResult(
            ending,
            code,
            self._start,
            self._ended - self._t0,
            reason,
            peak,
            self._oom_before is not None and oom_after is not None and oom_after > self._oom_before,
            self._memory.peak_kb,
        )
        _close_log(self._out, result)
        return result

    def _supervise(self, stop: bool, on_clean_exit: OnExit | None) -> tuple[Ending, str, int | None]:
        proc, waiter, executor = self._proc, self._waiter, self._executor
        ending, reason = Ending.INTERRUPTED, "interrupted: process group stopped"
        try:  # a Ctrl-C anywhere still kills the tree
            if stop:
                reason = "interrupted: the run stopped"
            else:
                while not waiter.wait(0) and idle.step():
                    pass  # the run's later work, a task at a time while the child runs
                ending, reason = self._watch()
        except KeyboardInterrupt:
            pass
        self._ended = time.monotonic()  # its duration ends here, not after the sweep or a kill's grace
        grace = 0.0 if ending is Ending.EXITED else executor.grace
        # The child is not reaped yet: its status is read, not taken.
        clean = ending is Ending.EXITED and _exit_code(proc.pid) == 0
        then = on_clean_exit if clean else None
        try:
            if then is not None and born_nothing(proc.pid):
                # Nothing of this stage can outlive it: the next one starts before the sweep, which
                # then reads one stat, not /proc.
                starting, then = then, None
                starting()
        finally:
            try:
                # After a clean exit this only sweeps leftovers (a detached daemon, a worker
                # the launcher forgot); otherwise it is the kill itself.
                # One read of /proc for both sweeps, of processes born since (the stages started since
                # this one exited are the harness's own).
                table = snapshot(proc.pid, executor.running)
                kill_tree(self._tracker, lambda: not _exited(proc.pid), grace, table)
                # The tree misses a process that left the session after the last scan and was
                # orphaned before the exit (a daemon started just before it): it carries the token.
                kill_marked_by(STAGE_MARKER, self._stage, grace, born_after=self._tracker.born(table), table=table)
            finally:
                peak = _reap(proc)
                executor.running.discard(proc.pid)
                waiter.close()
                self._tee.close()
        if then is not None:  # it started processes: the next stage waits for their sweep
            then()
        return ending, reason, peak

    def _watch(self) -> tuple[Ending, str]:
        waiter, tracker, tee, req, t0 = self._waiter, self._tracker, self._tee, self._req, self._t0
        deadline = t0 + req.timeout if req.timeout else float("inf")
        last_activity, last_change = -1, t0
        # An exit ends the wait at once (pidfd); the tick paces the tree scan, the tee and the
        # clocks. Most stages of a trivial plan end within the first tick and need no scan: what
        # they leave is swept at the exit (group, session, stage token).
        tick, max_tick = 0.05, (0.2 if self._executor.live else 0.5)
        while True:
            now = time.monotonic()
            hang_at = last_change + req.hang_timeout if req.hang_timeout else float("inf")
            if waiter.wait(min(tick, max(0.0, deadline - now), max(0.0, hang_at - now))):
                return Ending.EXITED, ""
            tick = min(tick * 2, max_tick)
            if self._executor.interrupted:
                return Ending.INTERRUPTED, "interrupted: the run was stopped"
            alive = tracker.scan()  # remember descendants while their parent links still lead to us
            self._memory.sample((self._proc.pid, *alive))  # the stage's memory: its whole tree's
            tee.pump()
            now = time.monotonic()
            if now >= deadline:
                return Ending.TIMEOUT, f"timed out after {req.timeout:g} s: process group killed"
            if req.hang_timeout:
                activity = _activity(self._out.fileno(), req.watch)
                if activity != last_activity:
                    last_activity, last_change = activity, now
                elif now - last_change >= req.hang_timeout:
                    return Ending.HUNG, (f"hung: no new output for {req.hang_timeout:g} s: process group killed")


class ProcessExecutor:
    """Runs requests as real processes. ``grace``: seconds between SIGTERM and SIGKILL (``GRACE``)."""

    def __init__(
        self, grace: float | None = None, live: LiveSink | None = None, base_env: Mapping[str, str] | None = None
    ) -> None:
        self.grace = GRACE if grace is None else grace
        self.live = live
        self.base_env = base_env
        self._interrupted = threading.Event()
        self._spare: Path | None = None
        self._closed = False
        self.running: set[int] = set()  # the root pids of the stages started and not yet finished

    def interrupt(self) -> None:
        self._interrupted.set()

    def close(self) -> None:
        """No stage follows: the spare log file goes."""
        self._closed = True
        spare, self._spare = self._spare, None
        if spare is not None:
            with contextlib.suppress(OSError):
                os.unlink(spare)

    def _open_log(self, log: Path) -> BinaryIO:
        """The stage's log, new and empty. Creating a file costs 0.15-0.8 ms on ext4 here, renaming
        one 0.02 ms: the spare made while the last stage ran is renamed into place (on another
        file system, or taken by another thread, the log is created). It is opened without
        truncation: ext4 writes out a file truncated on open when it is closed (~0.2 ms)."""
        spare, self._spare = self._spare, None
        if spare is not None:
            try:
                os.rename(spare, log)
                fd = os.open(log, os.O_WRONLY)
            except OSError:
                with contextlib.suppress(OSError):
                    os.unlink(spare)
            else:
                if os.fstat(fd).st_size:  # written to since it was made: not ours to keep
                    os.ftruncate(fd, 0)
                return os.fdopen(fd, "wb")  # closed by _Launch.finish, after the footer
        return open(log, "wb")

    def _make_spare(self, folder: Path) -> None:
        """An empty file beside the last log, for the next stage's (an idle task: made while a stage runs).
        One name per folder: a spare left by a killed harness is the next run's."""
        if self._spare is None and not self._closed:
            spare = folder / SPARE_LOG
            os.close(os.open(spare, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644))
            self._spare = spare

    @property
    def interrupted(self) -> bool:
        return self._interrupted.is_set()

    def run(self, request: ExecRequest) -> ExecResult:
        return self.start(request).finish()

    def start(self, request: ExecRequest) -> Started:
        start = time.time()
        t0 = time.monotonic()
        out = None
        try:
            request.log.parent.mkdir(parents=True, exist_ok=True)
            out = self._open_log(request.log)
            out.write(_header(request, start))
            out.flush()
        except OSError as exc:  # a full disk or a read-only folder: the stage cannot run unlogged
            if out is not None:
                with contextlib.suppress(OSError):
                    out.close()
            reason = f"cannot write its log {request.log}: {exc.strerror or exc}"
            return _Ended(ExecResult(Ending.NOT_STARTED, None, start, time.monotonic() - t0, reason))
        stage = secrets.token_hex(8)
        try:
            proc = subprocess.Popen(
                request.argv,
                cwd=request.cwd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=child_env(
                    {**request.env, **_marks(request, stage)},
                    os.environ if self.base_env is None else self.base_env,
                ),
            )
        except OSError as exc:
            result = ExecResult(
                Ending.NOT_STARTED,
                None,
                start,
                time.monotonic() - t0,
                f"cannot start {request.argv[0]!r}: {exc.strerror or exc}",
            )
            _close_log(out, result)
            return _Ended(result)
        try:
            # The child is queued on the harness's CPU, and the scheduler leaves it there behind the
            # harness's next work for milliseconds while another CPU idles: a short child took 2.5 ms
            # longer for 3 ms of the harness's work after its spawn, 0.3 ms after a yield, which lets
            # it run here and an idle CPU take the harness (benchmarks/spawn_yield.py).
            os.sched_yield()
            idle.later(partial(self._make_spare, request.log.parent))
            # Read as the child starts, not before: the harness's part of the time between two
            # stages is then no longer. A kill in the child's first instant is not a memory kill.
            return _Launch(self, proc, out, request, (start, t0), stage, oom_kills())
        except BaseException:  # a Ctrl-C just after the start: nothing of it may outlive the harness
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            _reap(proc)
            out.close()
            raise


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Treat SIGTERM like Ctrl-C for the duration, so a terminated run cleans up and keeps
    its results instead of dying with its children still running."""

    def handler(signum: int, frame: FrameType | None) -> NoReturn:
        raise KeyboardInterrupt(f"signal {signum}")

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
