"""Where the facts come from: a Protocol, and the machine's implementation.

``SystemProbes`` asks the stage interpreter (``inspect_env.py``, ``paddle.utils.run_check()``)
and ``nvidia-smi`` through ``tipc.proc.child.ask``, the one place tipc asks programs questions
(bounded, no stdin, a session of its own), and reads free disk space itself. Tests give a
fake ``Probes`` with the answers of a GPU machine, a broken driver, a CPU build.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Protocol

from tipc.doctor import inspect_env
from tipc.doctor.facts import Driver, Environment, RunCheck, parse_environment, parse_nvidia_smi
from tipc.doctor.known_bad import load_table, packages
from tipc.proc.child import ask

INSPECT_TIMEOUT = 60.0  # importing paddle on a loaded machine: seconds, not minutes
RUN_CHECK_TIMEOUT = 180.0  # run_check trains a few steps (on every GPU with NCCL on a GPU build)
SMI_TIMEOUT = 30.0
RUN_CHECK = "import paddle; paddle.utils.run_check()"
RUN_CHECK_PASSED = "PaddlePaddle is installed successfully"


class Probes(Protocol):
    def environment(self, python: str, pythonpath: tuple[str, ...]) -> Environment: ...

    def run_check(self, python: str) -> RunCheck: ...

    def nvidia_smi(self) -> Driver | None:
        """None: no ``nvidia-smi`` on PATH."""
        ...

    def free_bytes(self, path: Path) -> int: ...


def _no_answer(python: str, timed_out: bool, error: str, timeout: float) -> str:
    return f"{python} did not answer within {timeout:g} s" if timed_out else f"cannot start {python!r}: {error}"


class SystemProbes:
    """Each question asked once per interpreter: a matrix of configs mostly shares one."""

    def __init__(self, run_check_timeout: float = RUN_CHECK_TIMEOUT) -> None:
        self.run_check_timeout = run_check_timeout
        self._environments: dict[tuple[str, tuple[str, ...]], Environment] = {}
        self._run_checks: dict[str, RunCheck] = {}
        self._driver: tuple[Driver | None] | None = None

    def environment(self, python: str, pythonpath: tuple[str, ...]) -> Environment:
        key = (python, pythonpath)
        if key not in self._environments:
            self._environments[key] = self._environment(python, pythonpath)
        return self._environments[key]

    def run_check(self, python: str) -> RunCheck:
        if python not in self._run_checks:
            self._run_checks[python] = self._run_check(python)
        return self._run_checks[python]

    def nvidia_smi(self) -> Driver | None:
        if self._driver is None:
            self._driver = (self._nvidia_smi(),)
        return self._driver[0]

    def _environment(self, python: str, pythonpath: tuple[str, ...]) -> Environment:
        paths = [arg for path in pythonpath for arg in ("--path", path)]
        names = [arg for name in packages(load_table()) for arg in ("--package", name)]
        done = ask([python, inspect_env.__file__, *paths, *names], INSPECT_TIMEOUT)
        if done.returncode is None:
            return Environment(problem=_no_answer(python, done.timed_out, done.error, INSPECT_TIMEOUT))
        try:
            return parse_environment(done.stdout)
        except ValueError:
            return Environment(problem=f"{python} exited with {done.returncode}: {done.last_line(done.stderr)}")

    def _run_check(self, python: str) -> RunCheck:
        start = time.monotonic()
        done = ask([python, "-c", RUN_CHECK], self.run_check_timeout)
        seconds = time.monotonic() - start
        if done.returncode is None:
            return RunCheck(False, _no_answer(python, done.timed_out, done.error, self.run_check_timeout), seconds)
        output = done.stdout + done.stderr
        if done.returncode == 0 and RUN_CHECK_PASSED in output:
            return RunCheck(True, RUN_CHECK_PASSED, seconds)
        return RunCheck(False, f"exit {done.returncode}: {done.last_line(done.stderr or done.stdout)}", seconds)

    def _nvidia_smi(self) -> Driver | None:
        smi = shutil.which("nvidia-smi")
        if smi is None:
            return None
        done = ask([smi], SMI_TIMEOUT)
        if done.returncode != 0:
            why = "did not answer in time" if done.timed_out else done.error or done.last_line(done.stdout)
            return Driver(problem=f"{smi} failed: {why}")
        return parse_nvidia_smi(done.stdout)

    def free_bytes(self, path: Path) -> int:
        return shutil.disk_usage(path).free
