"""The results_python.log line, byte for byte against the bash's shape (spec §4.2)."""

from __future__ import annotations

import io
import re

import pytest

from tipc.plan.model import Stage, StageKind
from tipc.run import legacy

# The parse the spec gives for the bash's lines, after stripping its colour codes.
BASH_LINE = re.compile(r"^ Run (successfully|failed) with command - (?P<model>.*?) - (?P<cmd>.*) - (?P<log>\S*) $")


@pytest.mark.parametrize(("ok", "expected"), [
    (True, b" Run successfully with command - m - python a.py  -o x=1  - ./o/S.log \n"),
    (False, b" Run failed with command - m - python a.py  -o x=1  - ./o/S.log \n"),
], ids=["success", "failure"])
def test_status_line_bytes(ok, expected):
    line = legacy.status_line(ok, "m", "python a.py  -o x=1 ", "./o/S.log")
    assert line.encode() == expected
    assert "\x1b" not in line
    match = BASH_LINE.match(line.rstrip("\n"))
    assert match and match["model"] == "m" and match["log"] == "./o/S.log"


def test_stage_line_uses_legacy_spelling_then_falls_back_to_argv():
    stage = Stage(id="c::export", chain="c", name="export", kind=StageKind.EXPORT, argv=("py", "e.py", "-o", "a b"),
                  env={}, cwd=".", log="./o/c_export.log")
    assert legacy.stage_line(True, "m", stage) == " Run successfully with command - m - py e.py -o 'a b' - ./o/c_export.log \n"
    spelled = Stage(**{**{f: getattr(stage, f) for f in stage.__slots__}, "legacy_command": "py e.py > x 2>&1 ",
                       "legacy_log": "./o/x.log"})
    assert legacy.stage_line(False, "m", spelled) == " Run failed with command - m - py e.py > x 2>&1  - ./o/x.log \n"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("stream_type", "expected"), [
    (io.StringIO, " Run successfully with command - m - c - l \n"),
    (Tty, "\x1b[33m Run successfully with command - m - c - l \x1b[0m\n"),
], ids=["pipe-plain", "tty-yellow"])
def test_echo_colours_only_a_tty(stream_type, expected):
    stream = stream_type()
    legacy.echo(legacy.status_line(True, "m", "c", "l"), stream)
    assert stream.getvalue() == expected


def test_tty_echo_matches_the_bash_fixture_shape():
    """The coloured echo is exactly what the bash wrote into its file."""
    bash = "\x1b[33m Run successfully with command - PP - python tools/train.py -o a=1  - ./S.log \x1b[0m\n"
    stream = Tty()
    legacy.echo(legacy.status_line(True, "PP", "python tools/train.py -o a=1 ", "./S.log"), stream)
    assert stream.getvalue() == bash
