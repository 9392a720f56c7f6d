"""Run a request (argv, cwd, env, log file) to its end: the log written, the tree swept, the result.

The log is written anew: a header (command, cwd, env, start), everything the child prints
(it writes straight into the file), and a footer (exit code, duration, how it ended). With a
live sink, what the child appends is copied to it as it comes (``--live``); a sink that fails
(a closed stdout, ``| head``) is dropped and the stage runs on, logged as before.

Each child's environment carries the run's id (``RUN_MARKER``), inherited by all its
descendants: the watchdog (``tipc.proc.watchdog``) finds by it what a killed harness left.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import BinaryIO, NoReturn, Protocol

from tipc.proc import child
from tipc.proc.child import Ending, Exit, Limits, child_env, run_child
from tipc.proc.tree import RUN_MARKER

LiveSink = Callable[[bytes], None]


class Observer(Protocol):
    """What is told while a stage runs (``tipc.session.progress.Progress``): its start, each look
    between waits, its end. Called from the thread that runs the stage (several with ``--jobs``)."""

    def start(self, stage_id: str, log: Path, expected: float | None) -> None: ...

    def tick(self) -> None: ...

    def finish(self, stage_id: str) -> None: ...


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
    marker: str = ""  # the run's id, set as RUN_MARKER in the child's environment (not in the header)
    label: str = ""  # what a progress line calls it (the title where empty)
    expected: float | None = None  # seconds it took when it last ran (tipc.history.durations), None: never
    abort: Callable[[], str] | None = None  # asked while it runs: a reason ends it (a node of its job went silent)


@dataclass(frozen=True, slots=True)
class ExecResult:
    ending: Ending
    returncode: int | None
    start: float  # unix time
    duration: float  # seconds
    reason: str = ""
    peak_rss_kb: int | None = None  # wait4's: the root process's own (or the largest one it waited for)
    oom_killed: bool = False
    tree_peak_kb: int | None = None  # the largest sum over the stage's live process tree
    stopped_by: str = ""  # the signal that stopped the run while the stage ran (child.Exit's)

    @property
    def stage_peak_kb(self) -> int | None:
        """The stage's memory: its tree's, or the root's where that is larger or the tree was never sampled."""
        known = [kb for kb in (self.tree_peak_kb, self.peak_rss_kb) if kb is not None]
        return max(known) if known else None


class Executor(Protocol):
    def run(self, request: ExecRequest) -> ExecResult:
        """Run the request to its end; nothing it started is left running when this returns."""

    def interrupt(self) -> None:
        """End what runs now or later as INTERRUPTED, from another thread (a scheduler's worker
        threads get no KeyboardInterrupt: only the main thread does)."""


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


class _Tee:
    """Copy what the child appends to its log to a live sink, from a second handle. A sink that
    raises is dropped: the stage's output goes on into its log, only the echo stops."""

    def __init__(self, log: Path, offset: int, sink: LiveSink) -> None:
        self._sink: LiveSink | None = sink
        self._file = open(log, "rb")  # noqa: SIM115 - closed by close()
        self._file.seek(offset)

    def pump(self) -> None:
        if self._sink is not None and (data := self._file.read()):
            try:
                self._sink(data)
            except Exception:  # noqa: BLE001 - a closed stdout, or a sink's bug: never the stage's end
                self._sink = None

    def close(self) -> None:
        self._file.close()


def _ticks(tee: _Tee | None, progress: Observer | None) -> Callable[[], None] | None:
    """The supervision's tick: the live tee's pump and the progress's look; None for neither (the
    supervision then waits longer). A progress that raises (a closed stdout) says nothing more:
    what it shows is a courtesy, never the stage's end."""
    if progress is None:
        return tee.pump if tee else None
    shown: list[Observer] = [progress]

    def tick() -> None:
        if tee is not None:
            tee.pump()
        if shown:
            try:
                shown[0].tick()
            except Exception:  # noqa: BLE001 - as the tee's sink
                shown.clear()

    return tick


class ProcessExecutor:
    """Runs requests as real processes. ``grace``: seconds between SIGTERM and SIGKILL."""

    def __init__(
        self,
        grace: float | None = None,
        live: LiveSink | None = None,
        base_env: Mapping[str, str] | None = None,
        progress: Observer | None = None,
    ) -> None:
        self.grace = child.GRACE if grace is None else grace
        self.live = live
        self.progress = progress
        self.base_env = base_env
        self._interrupted = threading.Event()

    def interrupt(self) -> None:
        self._interrupted.set()

    @property
    def interrupted(self) -> bool:
        return self._interrupted.is_set()

    def run(self, request: ExecRequest) -> ExecResult:
        start = time.time()
        t0 = time.monotonic()
        try:
            request.log.parent.mkdir(parents=True, exist_ok=True)
            out = open(request.log, "wb")  # noqa: SIM115 - closed below, after the footer
        except OSError as exc:  # a full disk or a read-only folder: the stage cannot run unlogged
            reason = f"cannot write its log {request.log}: {exc.strerror or exc}"
            return ExecResult(Ending.NOT_STARTED, None, start, time.monotonic() - t0, reason)
        try:
            result = self._run(request, out, start, t0)
        finally:
            with contextlib.suppress(OSError):  # a full disk: what could not be flushed is lost
                out.close()
        return result

    def _run(self, req: ExecRequest, out: BinaryIO, start: float, t0: float) -> ExecResult:
        try:
            out.write(_header(req, start))
            out.flush()
        except OSError as exc:
            reason = f"cannot write its log {req.log}: {exc.strerror or exc}"
            return ExecResult(Ending.NOT_STARTED, None, start, time.monotonic() - t0, reason)
        tee = _Tee(req.log, out.tell(), self.live) if self.live else None
        tick = _ticks(tee, self.progress)
        label = req.label or req.title
        if self.progress is not None:
            self.progress.start(label, req.log, req.expected)
        env = child_env(
            {**req.env, **({RUN_MARKER: req.marker} if req.marker else {})},
            os.environ if self.base_env is None else self.base_env,
        )
        try:
            done: Exit = run_child(
                req.argv,
                cwd=req.cwd,
                env=env,
                stdout=out,
                stderr=out,
                limits=Limits(req.timeout, req.hang_timeout, self.grace),
                activity=(lambda: _activity(out.fileno(), req.watch)) if req.hang_timeout else None,
                tick=tick,
                stop=self._interrupted,
                abort=req.abort,
            )
        except OSError as exc:
            done = Exit(
                Ending.NOT_STARTED, None, time.monotonic() - t0, f"cannot start {req.argv[0]!r}: {exc.strerror or exc}"
            )
        finally:
            if tee is not None:
                tee.close()
            if self.progress is not None:
                self.progress.finish(label)
        result = ExecResult(
            done.ending,
            done.returncode,
            start,
            done.duration,
            done.reason,
            done.peak_rss_kb,
            done.oom_killed,
            done.tree_peak_kb,
            done.stopped_by,
        )
        with contextlib.suppress(OSError):  # the footer is a courtesy; the record tells the story
            out.write(_footer(result))
            out.flush()
        return result


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Treat SIGTERM like Ctrl-C for the duration, so a terminated run cleans up and keeps
    its results instead of dying with its children still running."""

    def handler(signum: int, frame: FrameType | None) -> NoReturn:
        raise child.Stopped(signal.Signals(signum).name)

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
