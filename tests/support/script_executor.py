"""An ``Executor`` that runs a stage's Python script in this process: the loop's logic, without a process.

The core loop (gate → run → judge → record) is the same whatever runs a stage, so its logic tests
(gating, golden and agreement checks, what a record holds) need the fake target's scripts to do their
work — write their outputs, logs and figures, exit 0 or 1 — not a process to do it in: spawning one
per stage was most of those tests' time. The process layer (time limits, hangs, signals, what a
stage leaves running, a killed harness) keeps its real processes (``tipc.proc``'s tests, the loop's
kill and pipe tests, the end-to-end runs).

A request runs as its process would: ``argv[1]`` (a script) as ``__main__`` with ``argv[1:]`` as
``sys.argv``, in its ``cwd``, with its environment overrides applied, its script's folder first on
``sys.path``, its output into its log. Only the fake target's scripts are run this way: anything
that is not ``python SCRIPT …`` is an error here, not a silent pass.
"""

from __future__ import annotations

import contextlib
import io
import os
import runpy
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from tipc.proc.child import Ending
from tipc.proc.executor import ExecRequest, ExecResult

# The fake target's modules: imported afresh by each script, as each process did.
FAKE_MODULES = ("_fake",)


class ScriptExecutor:
    """``Executor`` of fake-target scripts, in this process (see the module's docstring)."""

    def __init__(self) -> None:
        self.requests: list[ExecRequest] = []

    def run(self, request: ExecRequest) -> ExecResult:
        self.requests.append(request)
        script = _script(request)
        start = time.time()
        request.log.parent.mkdir(parents=True, exist_ok=True)
        with open(request.log, "w", encoding="utf-8") as log:
            with _as_process(request, script, log):
                returncode = _main(script, log)
        return ExecResult(Ending.EXITED, returncode, start, time.time() - start)


def _script(request: ExecRequest) -> Path:
    if len(request.argv) < 2 or not request.argv[1].endswith(".py"):
        raise ValueError(f"ScriptExecutor runs `python SCRIPT ...` only, not {request.argv}")
    return Path(request.cwd) / request.argv[1]


def _main(script: Path, log: io.TextIOBase) -> int:
    """The script's exit status, as its process would have had it."""
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=log)  # sys.exit("message"): printed to stderr, status 1
        return 1
    return 0


@contextlib.contextmanager
def _as_process(request: ExecRequest, script: Path, log: io.TextIOBase) -> Iterator[None]:
    """Argv, cwd, environment, import path and output as the request's process would have them."""
    saved = (list(sys.argv), list(sys.path), os.getcwd(), dict(os.environ))
    sys.argv = [str(script), *request.argv[2:]]
    sys.path.insert(0, str(script.parent))
    for name in FAKE_MODULES:
        sys.modules.pop(name, None)
    _apply(request.env)
    try:
        os.chdir(request.cwd)
        with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
            yield
    finally:
        sys.argv, sys.path[:] = saved[0], saved[1]
        os.chdir(saved[2])
        os.environ.clear()
        os.environ.update(saved[3])
        for name in FAKE_MODULES:
            sys.modules.pop(name, None)


def _apply(env: Mapping[str, str | None]) -> None:
    for key, value in env.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
