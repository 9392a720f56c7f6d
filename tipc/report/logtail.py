"""The ends of log files, read cheaply, and links to the whole files.

Logs can be hundreds of MB; a report only ever reads a file's last few KiB (seek).
Some logs are appended to by run after run (the trainer's ``train.log``, the launcher's
``workerlog.N``): a stage's ``log_offsets`` say where its own part begins, and nothing
before that is shown as its evidence.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from urllib.parse import quote

from tipc.metrics import logfile
from tipc.report.model import Link, LogTail

TAIL_LINES = 80
TAIL_BYTES = 16 * 1024
# Passed stages rarely need reading: a short tail keeps a big report small.
PASSED_TAIL_LINES = 20
PASSED_TAIL_BYTES = 4 * 1024


def file_link(target: Path, report_dir: Path) -> str:
    """A relative href when the log and the report share a directory tree, else a file:// URI.

    Relative links survive moving the whole tree (a CI artifact holding reports and
    outputs); logs elsewhere on the machine get an absolute URI.
    """
    # Strings, not Paths: a report links each of its thousands of logs.
    file, folder = os.path.abspath(target), os.path.abspath(report_dir)
    if os.path.commonpath([file, folder]) != os.sep:
        return quote(os.path.relpath(file, folder).replace(os.sep, "/"))
    return Path(file).as_uri()


def log_tail(path: str, report_dir: Path, *, short: bool = False, label: str = "log", since: int = 0) -> LogTail:
    if not path:
        return LogTail(label=label, missing="no log recorded for this stage")
    p = Path(path)
    link = Link(href=file_link(p, report_dir), text=str(p))
    lines, size = (PASSED_TAIL_LINES, PASSED_TAIL_BYTES) if short else (TAIL_LINES, TAIL_BYTES)
    try:
        text, truncated = logfile.log_tail(p, size, since, lines)
    except OSError as exc:
        return LogTail(label=label, link=link, missing=f"cannot read the log: {exc.strerror or exc}")
    return LogTail(label=label, text=text, truncated=truncated, link=link)


def command_text(argv: tuple[str, ...]) -> str:
    return shlex.join(argv)
