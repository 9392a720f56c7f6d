"""What the stage interpreter is: its Python and paddle versions, asked once per run.

tipc never imports paddle; the interpreter the stages run with is asked instead,
in a child bounded by a timeout (``versions.py``), in a thread while the first stages
run. When the stages run in the harness's own environment, its installed metadata
answers in-process instead, when the answer is needed. The answers go into ``run.json`` and into the
multi-node preflight, which compares paddle versions across nodes.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import re
import shutil
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tipc.proc.child import ask, niced
from tipc.run import versions

PROBE_TIMEOUT = 60.0  # importing paddle on a loaded machine takes seconds, not minutes

# Run by path (it imports nothing of tipc); prints one JSON object.
VERSIONS_SCRIPT = str(Path(__file__).with_name("versions.py"))


@dataclass(frozen=True, slots=True)
class InterpreterFacts:
    python_version: str = ""
    paddle_version: str = ""
    problem: str = ""  # why the interpreter could not be asked ("" when it answered)


NO_FACTS = InterpreterFacts()  # before the interpreter answered, and in a dry run


# Words of the line that says why a program did not run; the lines after it are often advice
# (pyenv's "... to be found at the same time.", a traceback's frames are before its error).
_WHY = re.compile(r"not found|no such file|no module named|error|cannot|can't|denied|not installed", re.IGNORECASE)


def telling_line(text: str) -> str:
    """The last line of ``text`` that says why (an error, a missing file or command), else its last line."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return next((line for line in reversed(lines) if _WHY.search(line)), lines[-1] if lines else "no output")


def ask_interpreter(python: str, timeout: float = PROBE_TIMEOUT) -> InterpreterFacts:
    """Run ``python`` once to learn its versions; never raises, never outlives ``timeout``."""
    if shutil.which(python) is None:  # asked here: through `nice`, a missing one would read as exit 127
        return InterpreterFacts(problem=f"cannot start {python!r}: not found or not executable")
    done = ask(niced([python, VERSIONS_SCRIPT]), timeout)
    if done.timed_out:
        return InterpreterFacts(problem=f"{python} did not answer within {timeout:g} s")
    if done.error:
        return InterpreterFacts(problem=f"cannot start {python!r}: {done.error}")
    try:
        answer = json.loads(done.last_line(done.stdout))
        return InterpreterFacts(str(answer["python_version"]), str(answer["paddle_version"]))
    except (ValueError, KeyError, TypeError):
        return InterpreterFacts(problem=f"{python} exited with {done.returncode}: {telling_line(done.stderr)}")


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
    done = ask([path, "-c", ""], RUN_TIMEOUT)
    if done.timed_out:
        return f"does not start within {RUN_TIMEOUT:g} s"
    if done.error:
        return f"cannot run ({done.error})"
    if done.returncode != 0:
        return f"is on PATH ({path}) but cannot run: exit {done.returncode}: {telling_line(done.stderr)[:200]}"
    return ""


# Found, not imported: importing paddle takes seconds, finding it milliseconds.
FIND_PADDLE = "import importlib.util, sys; sys.exit(importlib.util.find_spec('paddle') is None)"


@functools.lru_cache(maxsize=16)
def lacks_paddle(python: str) -> str:
    """ "" when ``python`` finds paddle; else a sentence for the warning a run starts with (a stage
    interpreter without paddle fails every stage that imports it; the run should say so first)."""
    if same_environment(python):
        import importlib.util

        return "" if importlib.util.find_spec("paddle") is not None else f"{python} has no paddle to import"
    done = ask([python, "-c", FIND_PADDLE], RUN_TIMEOUT)
    if done.returncode == 1:
        return f"{python} has no paddle to import"
    return ""  # it found paddle, or did not answer: cannot_run and the stages say why


@functools.lru_cache(maxsize=8)
def interpreter_facts(python: str) -> InterpreterFacts:
    """``ask_interpreter`` once per interpreter and process (every config of a run shares it)."""
    return ask_interpreter(python)


def same_environment(python: str) -> bool:
    """``python`` is this very interpreter in this very environment: the same program in the same
    folder (a venv's ``python`` and ``python3`` are; a venv's python and the base interpreter it
    links to are not: their packages differ)."""
    path = shutil.which(python)
    here = sys.executable
    return (
        path is not None
        and os.path.dirname(os.path.abspath(path)) == os.path.dirname(os.path.abspath(here))
        and os.path.realpath(path) == os.path.realpath(here)
    )


def facts_in_background(python: str) -> Callable[[], InterpreterFacts]:
    """The stage interpreter's facts; the returned call gives them, waiting at most for the
    probe's own timeout. In this environment its metadata answers when asked; another
    interpreter is asked now, in a thread, so that no stage waits for it."""
    if not same_environment(python):
        return _asked_in_background(python)

    @functools.lru_cache(maxsize=1)
    def look() -> InterpreterFacts:
        version = versions.paddle_from_metadata()
        if version:
            return InterpreterFacts(platform.python_version(), version)
        return _asked_in_background(python)()  # a paddle without metadata

    return look


def _asked_in_background(python: str) -> Callable[[], InterpreterFacts]:
    """``interpreter_facts`` in a thread; the returned call waits for it.
    A bare thread: ``concurrent.futures`` would cost every run ~4 ms to import."""
    answer: list[InterpreterFacts] = []
    thread = threading.Thread(target=lambda: answer.append(interpreter_facts(python)), name="tipc-probe")
    thread.start()

    def wait() -> InterpreterFacts:
        thread.join()
        return answer[0] if answer else InterpreterFacts(problem=f"asking {python} failed (see the error above)")

    return wait
