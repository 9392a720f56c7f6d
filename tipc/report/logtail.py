"""The ends of log files, read cheaply, and links to the whole files.

Logs can be hundreds of MB; a report only ever reads a file's last few KiB (seek).
Some logs are appended to by run after run (the trainer's ``train.log``, the launcher's
``workerlog.N``): a stage's ``log_offsets`` say where its own part begins, and nothing
before that is shown as its evidence.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote

from tipc.files import read
from tipc.metrics.logtext import printable
from tipc.report.model import Link, LogTail
from tipc.report.naming import argv_option
from tipc.results.records import StageRecord
from tipc.run.workerlogs import worker_logs as rank_logs

TAIL_LINES = 80
TAIL_BYTES = 16 * 1024
# Passed stages rarely need reading: a short tail keeps a big report small.
PASSED_TAIL_LINES = 20
PASSED_TAIL_BYTES = 4 * 1024

# What marks the rank that broke, strongest evidence first.
_FAILURE_MARKERS = ("Traceback (most recent call last)", "Error", "ABORT")


def read_tail(path: Path, max_lines: int = TAIL_LINES, max_bytes: int = TAIL_BYTES, since: int = 0) -> tuple[str, bool]:
    """The last ``max_lines`` lines within the last ``max_bytes`` bytes after byte ``since``; True
    when cut. A file now shorter than ``since`` was replaced since: all of it is the stage's."""
    data, cut = read.tail(path, max_bytes, since)
    lines = printable(data.decode("utf-8", errors="replace")).splitlines()
    return "\n".join(lines[-max_lines:]), cut or len(lines) > max_lines


def offset_of(record: StageRecord, path: str | Path) -> int:
    """Where ``record``'s own part of ``path`` begins (0: the whole file is the stage's)."""
    if not record.log_offsets:
        return 0
    wanted = os.path.abspath(path)
    for logged, offset in record.log_offsets.items():
        if os.path.abspath(logged) == wanted and isinstance(offset, int) and not isinstance(offset, bool):
            return max(0, offset)
    return 0


def file_link(target: Path, report_dir: Path) -> str:
    """A relative href when the log and the report share a directory tree, else a file:// URI.

    Relative links survive moving the whole tree (a CI artifact holding reports and
    outputs); logs elsewhere on the machine get an absolute URI.
    """
    target, report_dir = Path(os.path.abspath(target)), Path(os.path.abspath(report_dir))
    if os.path.commonpath([target, report_dir]) != os.sep:
        return quote(Path(os.path.relpath(target, report_dir)).as_posix())
    return target.as_uri()


def log_tail(path: str, report_dir: Path, *, short: bool = False, label: str = "log", since: int = 0) -> LogTail:
    if not path:
        return LogTail(label=label, missing="no log recorded for this stage")
    p = Path(path)
    link = Link(href=file_link(p, report_dir), text=str(p))
    lines, size = (PASSED_TAIL_LINES, PASSED_TAIL_BYTES) if short else (TAIL_LINES, TAIL_BYTES)
    try:
        text, truncated = read_tail(p, lines, size, since)
    except OSError as exc:
        return LogTail(label=label, link=link, missing=f"cannot read the log: {exc.strerror or exc}")
    return LogTail(label=label, text=text, truncated=truncated, link=link)


def launch_log_dirs(record: StageRecord) -> tuple[Path, ...]:
    """Where ``paddle.distributed.launch`` put the ranks' logs, by every clue we have: the run's own
    rule (``--log_dir`` in argv) first, then where older or hand-made results keep them."""
    found: list[Path] = []
    explicit = record.metrics.get("launch_log_dir") or argv_option(record.argv, "--log_dir")
    if explicit:
        found.append(Path(record.cwd or ".") / explicit)
    if record.log:  # beside the stage log (S.log), or beside S when the log is S/train.log
        parent = Path(record.log).parent
        found.extend(sorted(parent.glob("*_launch_log")))
        found.append(parent.with_name(parent.name + "_launch_log"))
    unique = dict.fromkeys(Path(os.path.abspath(p)) for p in found if p.is_dir())
    return tuple(unique)


def worker_logs(record: StageRecord) -> tuple[Path, ...]:
    """Every rank's ``workerlog.N``, directory by directory, in rank order."""
    return tuple(path for d in launch_log_dirs(record) for path in rank_logs(d).values())


def failing_worker(logs: tuple[Path, ...], since: Mapping[Path, int] | None = None) -> Path | None:
    """The rank whose tail shows the failure; ``None`` when no tail says so. ``since``: where each
    log's part written by the stage begins (an earlier run's traceback is no evidence)."""
    since = since or {}
    tails = {}
    for p in logs:
        try:
            tails[p] = read_tail(p, since=since.get(p, 0))[0]
        except OSError:
            continue
    for marker in _FAILURE_MARKERS:
        for p, text in tails.items():
            if marker in text:
                return p
    return None


def command_text(argv: tuple[str, ...]) -> str:
    return shlex.join(argv)
