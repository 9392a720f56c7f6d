"""Asking the stage interpreter for its versions: answers, missing paddle, no answer."""

from __future__ import annotations

import os
import platform
import sys
import time
from pathlib import Path

import pytest

from tipc.proc.child import Answer
from tipc.run import probe, versions
from tipc.run.probe import InterpreterFacts, ask_interpreter, facts_in_background, same_environment, telling_line

PADDLES = {
    "paddle-present": "__version__ = '9.8.7'\n",
    "paddle-broken": "raise ImportError('no libpaddle')\n",
}


def fake_python(tmp_path: Path, body: str) -> str:
    """An interpreter whose ``paddle`` package is ``body``: without site-packages (``-S``), it sees
    neither the real paddle nor its metadata, only what the test puts in ``tmp_path``."""
    (tmp_path / "paddle").mkdir()
    (tmp_path / "paddle" / "__init__.py").write_text(body)
    script = tmp_path / "python"
    script.write_text(f'#!/bin/sh\nPYTHONPATH={tmp_path} exec {sys.executable} -S "$@"\n')
    script.chmod(0o755)
    return str(script)


@pytest.mark.parametrize(
    ("body", "paddle_version"),
    [
        (PADDLES["paddle-present"], "9.8.7"),
        (PADDLES["paddle-broken"], ""),
    ],
    ids=list(PADDLES),
)
def test_versions_come_from_the_interpreter(tmp_path, body, paddle_version):
    facts = ask_interpreter(fake_python(tmp_path, body))
    assert facts == InterpreterFacts(platform.python_version(), paddle_version)


@pytest.mark.parametrize(
    ("script", "problem"),
    [
        (None, "cannot start"),
        ("#!/bin/sh\nsleep 30\n", "did not answer within 0.5 s"),
        ("#!/bin/sh\necho boom >&2; exit 3\n", "exited with 3: boom"),
    ],
    ids=["missing", "silent", "crashes"],
)
def test_an_interpreter_that_does_not_answer_is_a_problem_not_an_error(tmp_path, script, problem):
    python = tmp_path / "python"
    if script:
        python.write_text(script)
        python.chmod(0o755)
    facts = ask_interpreter(str(python), timeout=0.5)
    assert (facts.paddle_version, facts.python_version) == ("", "")
    assert problem in facts.problem


def test_facts_in_background_answers_later_without_blocking_the_caller(tmp_path):
    python = fake_python(tmp_path, "import time; time.sleep(1.5); __version__ = '1.2.3'\n")
    started = time.perf_counter()
    answer = facts_in_background(python)
    assert time.perf_counter() - started < 1.0  # the caller goes on while paddle imports
    assert answer() == InterpreterFacts(platform.python_version(), "1.2.3")


def test_an_installed_distribution_answers_without_importing_paddle(tmp_path):
    """Its metadata gives the version: importing paddle costs a second of CPU beside the first stages."""
    python = fake_python(tmp_path, "raise SystemExit('paddle was imported')\n")
    info = tmp_path / "paddlepaddle-3.3.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: paddlepaddle\nVersion: 3.3.1\n")
    assert ask_interpreter(python) == InterpreterFacts(platform.python_version(), "3.3.1")


def test_a_paddle_installed_under_both_names_is_imported_to_tell_which(tmp_path):
    python = fake_python(tmp_path, "__version__ = '3.0.0'\n")
    for name, version in (("paddlepaddle", "3.3.1"), ("paddlepaddle_gpu", "3.0.0")):
        info = tmp_path / f"{name}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: {version}\n")
    assert ask_interpreter(python).paddle_version == "3.0.0"


@pytest.mark.parametrize(
    ("python", "same"),
    [
        (sys.executable, True),
        (str(Path(sys.executable).with_name("python3")), Path(sys.executable).with_name("python3").exists()),
        (os.path.realpath(sys.executable), os.path.realpath(sys.executable) == sys.executable),
        ("no-such-python", False),
    ],
    ids=["itself", "its-python3", "the-base-it-links-to", "missing"],
)
def test_the_same_environment_is_the_same_program_in_the_same_folder(python, same):
    assert same_environment(python) is same


def test_in_this_environment_the_metadata_answers(monkeypatch):
    def no_child(*args, **kwargs):
        raise AssertionError("a child was asked")

    monkeypatch.setattr(probe, "ask", no_child)
    monkeypatch.setattr(versions, "paddle_from_metadata", lambda: "3.3.1")
    assert facts_in_background(sys.executable)() == InterpreterFacts(platform.python_version(), "3.3.1")


def test_in_this_environment_a_paddle_without_metadata_is_asked(monkeypatch):
    monkeypatch.setattr(
        probe, "ask", lambda argv, timeout: Answer(0, '{"python_version": "3.11.7", "paddle_version": "0.0.0"}')
    )
    monkeypatch.setattr(versions, "paddle_from_metadata", lambda: "")
    probe.interpreter_facts.cache_clear()
    try:
        assert facts_in_background(sys.executable)() == InterpreterFacts("3.11.7", "0.0.0")
    finally:
        probe.interpreter_facts.cache_clear()


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            "pyenv: python3.7: command not found\n\nThe `python3.7' command exists in these Python versions:\n"
            "  3.7.17\n\nNote: See 'pyenv help global' for tips on allowing both\n"
            "      python2 and python3 to be found at the same time.\n",
            "pyenv: python3.7: command not found",
        ),
        (
            'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n'
            "ModuleNotFoundError: No module named 'paddle'\n",
            "ModuleNotFoundError: No module named 'paddle'",
        ),
        ("just a line\nthe last\n", "the last"),
        ("", "no output"),
    ],
    ids=["pyenv-shim", "traceback", "nothing-telling", "empty"],
)
def test_the_line_that_says_why(text, line):
    assert telling_line(text) == line
