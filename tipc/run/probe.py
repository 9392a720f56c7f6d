"""What the stage interpreter is: its Python and paddle versions, asked once per run.

tipc never imports paddle; the interpreter the stages run with is asked instead,
in a child bounded by a timeout. The answers go into ``run.json`` and into the
multi-node preflight, which compares paddle versions across nodes.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

PROBE_TIMEOUT = 60.0  # importing paddle on a loaded machine takes seconds, not minutes

# Prints one JSON object; a missing or broken paddle is "" rather than an error.
PROBE = """\
import json, platform
try:
    import paddle
    version = paddle.__version__
except Exception:
    version = ""
print(json.dumps({"python_version": platform.python_version(), "paddle_version": version}))
"""


@dataclass(frozen=True, slots=True)
class InterpreterFacts:
    python_version: str = ""
    paddle_version: str = ""
    problem: str = ""  # why the interpreter could not be asked ("" when it answered)


NO_FACTS = InterpreterFacts()  # before the interpreter answered, and in a dry run


def _niced(argv: list[str]) -> list[str]:
    """At the lowest priority where ``nice`` exists: importing paddle is a second of CPU that
    runs beside the first stages, and must not slow them."""
    nice = shutil.which("nice")
    return [nice, "-n", "19", *argv] if nice else argv


def _ask(argv: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    """Run a question to the interpreter: no stdin, output kept, a session of its own, bounded."""
    return subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout,
                          start_new_session=True, check=False)  # fmt: skip


def ask_interpreter(python: str, timeout: float = PROBE_TIMEOUT) -> InterpreterFacts:
    """Run ``python`` once to learn its versions; never raises, never outlives ``timeout``."""
    if shutil.which(python) is None:  # asked here: through `nice`, a missing one would read as exit 127
        return InterpreterFacts(problem=f"cannot start {python!r}: not found or not executable")
    try:
        done = _ask(_niced([python, "-c", PROBE]), timeout)
    except subprocess.TimeoutExpired:
        return InterpreterFacts(problem=f"{python} did not answer within {timeout:g} s")
    except OSError as exc:
        return InterpreterFacts(problem=f"cannot start {python!r}: {exc.strerror or exc}")
    lines = done.stdout.strip().splitlines()
    try:
        answer = json.loads(lines[-1])
        return InterpreterFacts(str(answer["python_version"]), str(answer["paddle_version"]))
    except (IndexError, ValueError, KeyError, TypeError):
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return InterpreterFacts(problem=f"{python} exited with {done.returncode}: {tail}")


RUN_TIMEOUT = 20.0


@functools.lru_cache(maxsize=16)
def cannot_run(python: str) -> str:
    """ "" when ``python`` is on PATH (or a path) and runs; else why not, for a plan note or an error.

    A name on PATH is not enough: ``python3.7`` is often a pyenv or conda shim that exits 127."""
    path = shutil.which(python)
    if path is None:
        return "is not on PATH" if os.sep not in python else "does not exist or is not executable"
    if os.path.realpath(path) == os.path.realpath(sys.executable):
        return ""  # the interpreter running this check runs
    try:
        done = _ask([path, "-c", ""], RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"does not start within {RUN_TIMEOUT:g} s"
    except OSError as exc:
        return f"cannot run ({exc.strerror or exc})"
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1][:200]
        return f"is on PATH ({path}) but cannot run: exit {done.returncode}: {tail}"
    return ""


@functools.lru_cache(maxsize=8)
def interpreter_facts(python: str) -> InterpreterFacts:
    """``ask_interpreter`` once per interpreter and process (every config of a run shares it)."""
    return ask_interpreter(python)


def facts_in_background(python: str) -> Callable[[], InterpreterFacts]:
    """Start ``interpreter_facts`` in a thread; the returned call waits for its answer (bounded
    by the probe's own timeout), so the child never outlives the run that waits for it.
    A bare thread: ``concurrent.futures`` would cost every run ~4 ms to import."""
    answer: list[InterpreterFacts] = []
    thread = threading.Thread(target=lambda: answer.append(interpreter_facts(python)), name="tipc-probe")
    thread.start()

    def wait() -> InterpreterFacts:
        thread.join()
        return answer[0] if answer else InterpreterFacts(problem=f"asking {python} failed (see the error above)")

    return wait
