"""Bash compatibility: the ``results_python.log`` status line, and nothing else.

The bash harness (``status_check`` in PaddleOCR's ``common_func.sh``) appends
one line per stage it ran::

    \\x1b[33m Run successfully with command - <model> - <command> - <log> \\x1b[0m

Downstream CI splits these lines on `` - `` and greps for ``with command``, so
the shape is kept byte for byte: one space after the opening code, one before
the closing code, `` - `` separators, ``\\n`` at the end. tipc differs in two
deliberate ways:

* the file gets no colour codes (they make it harder to parse); only the echo
  to a terminal is coloured, and only when that terminal is a TTY;
* the status is the stage's own exit status (the bash logged the status of a
  ``cat`` for training, see docs/spec.md §8 B1).

Stages that did not run (blocked by a failed prerequisite, skipped as not
applicable) get no line. The bash would have run them and logged their (often
cascading) failures; writing "failed" for a stage that never ran would repeat
one root cause many times, and writing "successfully" would be false. Their
status is in ``results.jsonl`` instead.
"""

from __future__ import annotations

import shlex
from typing import TextIO

from tipc.metrics.logtext import printable
from tipc.plan.model import Stage

YELLOW = "\x1b[33m"
RESET = "\x1b[0m"


def status_line(ok: bool, model: str, command: str, log: str, tail: str = " ") -> str:
    """The uncoloured line, newline included; ``tail``: what the suite's status_check writes after the
    log (PaddleOCR one space, PaddleClas `` ! ``, PaddleDetection and PaddleSeg two spaces)."""
    verb = "successfully" if ok else "failed"
    return f" Run {verb} with command - {model} - {command} - {log}{tail}\n"


def stage_line(ok: bool, model: str, stage: Stage, tail: str = " ") -> str:
    """The line for one stage, with the command and log spelled as the bash spells them."""
    command = stage.legacy_command or shlex.join(stage.argv)
    return status_line(ok, model, command, stage.legacy_log or stage.log, tail)


def echo(line: str, stream: TextIO) -> None:
    """Write a status line to a terminal stream, in the bash's yellow when it is a TTY."""
    isatty = getattr(stream, "isatty", None)
    shown = printable(line.rstrip("\n"))  # the command is config text: it may carry escapes
    if isatty is not None and isatty():
        stream.write(f"{YELLOW}{shown}{RESET}\n")
    else:
        stream.write(shown + "\n")
    stream.flush()
