"""A process that outlives the harness, to kill the stages a dead harness leaves running.

Every stage process carries the run's id in its environment (``RUN_MARKER``),
and every descendant inherits it, including those that leave the stage's
session. Each supervised process is swept as it ends (``tipc.proc.child``); but a harness that is
SIGKILLed (the OOM killer, a CI job's timeout, ``kill -9``) runs no cleanup at
all, and its stages, each in a session of its own, would run on unowned.

The watchdog is a small Python process in a session of its own whose stdin is
a pipe from the harness. The kernel closes the harness's end however the
harness dies, so the watchdog needs no polling and no timer: a goodbye line
before the end of the pipe is a clean exit; an end without one means the
harness died, and the watchdog kills every process that carries the run's id.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path
from types import TracebackType

from tipc.proc.child import niced
from tipc.proc.tree import RUN_MARKER, kill_marked_by
from tipc.proc.watchdog_main import GOODBYE

_REAP = 1.0  # seconds a goodbye'd watchdog may take to exit before it is killed
# The watchdog runs isolated (-I): no PYTHONPATH, no cwd on its path, so it imports this
# very tipc, found from its location, rather than whatever else is installed.
_ROOT = str(Path(__file__).resolve().parents[2])
_MAIN = (
    "import sys; sys.path.insert(0, sys.argv[1]); from tipc.proc.watchdog_main import serve; "
    "serve(sys.argv[2], float(sys.argv[3]))"
)


def kill_marked(marker: str, grace: float = 3.0) -> int:
    """Kill every process of run ``marker``: SIGTERM, ``grace`` seconds, SIGKILL. Returns how many were found."""
    return kill_marked_by(RUN_MARKER, marker, grace)


class Watchdog:
    """The harness's end of a running watchdog.

    A process the harness forks without exec shares that end of the pipe: the watchdog
    then acts when the last of them is gone.
    """

    def __init__(self, proc: subprocess.Popen[bytes], marker: str) -> None:
        assert proc.stdin is not None  # started with stdin=PIPE
        self._proc = proc
        self._pipe = proc.stdin
        self.marker = marker

    @property
    def pid(self) -> int:
        return self._proc.pid

    def close(self) -> None:
        """The run ended cleanly: say goodbye, so that the watchdog kills nothing, and reap it."""
        if self._goodbye():
            self._reap()

    def _goodbye(self) -> bool:
        """Say goodbye and close the pipe; False when that was done already."""
        if self._pipe.closed:
            return False
        with contextlib.suppress(BrokenPipeError):  # it has died already: nobody to tell
            self._pipe.write(GOODBYE)
        self._pipe.close()
        return True

    def _reap(self) -> None:
        try:
            self._proc.wait(_REAP)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()

    def __enter__(self) -> Watchdog:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            # No goodbye: a run that ends by an exception may have left processes behind, and
            # the watchdog sweeps them as if we had died; its sweep ends within its grace.
            self._pipe.close()
            self._proc.wait()


def start_watchdog(marker: str, grace: float = 3.0) -> Watchdog:
    """Start the watchdog of run ``marker``; it is not waited for, it reads its pipe when it is ready."""
    if not marker:
        raise ValueError("a watchdog needs a non-empty run marker")
    # At the lowest priority, without site-packages (-S) and without the harness's modules
    # (``watchdog_main``): its start must not slow the first stage; killing, when it must, needs
    # no CPU to speak of.
    proc = subprocess.Popen(
        niced([sys.executable, "-I", "-S", "-c", _MAIN, _ROOT, marker, repr(grace)]),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        bufsize=0,
        cwd="/",
        start_new_session=True,
        close_fds=True,
    )  # stderr stays ours: a watchdog that cannot start says so
    return Watchdog(proc, marker)
