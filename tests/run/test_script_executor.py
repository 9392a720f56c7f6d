"""The in-process executor the loop's logic tests run the fake target with: a script as its process would."""

from __future__ import annotations

import os
import sys

import pytest

from tests.support.script_executor import ScriptExecutor
from tipc.proc.child import Ending
from tipc.proc.executor import ExecRequest

SCRIPT = """
import os, sys
print("args", sys.argv[1:], os.getcwd(), os.environ.get("SET"), os.environ.get("GONE"))
sys.exit(int(sys.argv[1]))
"""


@pytest.mark.parametrize(("code", "returncode"), [("0", 0), ("3", 3)])
def test_a_script_runs_in_its_cwd_with_its_env_and_its_exit_status(tmp_path, monkeypatch, code, returncode):
    (tmp_path / "s.py").write_text(SCRIPT)
    monkeypatch.setenv("GONE", "here")
    request = ExecRequest((sys.executable, "s.py", code), str(tmp_path), {"SET": "1", "GONE": None}, tmp_path / "s.log")
    before = os.getcwd()
    result = ScriptExecutor().run(request)
    assert (result.ending, result.returncode) == (Ending.EXITED, returncode)
    assert (tmp_path / "s.log").read_text() == f"args ['{code}'] {tmp_path} 1 None\n"
    assert (os.getcwd(), os.environ.get("GONE"), os.environ.get("SET")) == (before, "here", None)


def test_anything_but_a_script_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"runs `python SCRIPT \.\.\.` only"):
        ScriptExecutor().run(ExecRequest((sys.executable, "-c", "pass"), str(tmp_path), {}, tmp_path / "x.log"))
