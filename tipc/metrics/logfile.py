"""Figures from a log file in bounded memory: nightly logs of long trainings run to gigabytes.

Training figures need every step line, so the file is streamed line by line; an eval's
metrics and a predictor's benchmark block are the *last* block of their log, so a window
at its end is enough. ``since`` is where the stage's own part of an appended log begins.
Every read goes through the read door (``tipc.files.read``): a log that is, or was replaced by
a link to, a FIFO or ``/dev/zero`` is ``Refused`` (an ``OSError``) at once; a log is read up to
the size it had when opened; a line without a newline comes in pieces of ``MAX_LINE`` bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tipc.files import read
from tipc.metrics.logtext import printable

from .trainlog import train_metrics_of_lines

TAIL_WINDOW = 1 << 20  # an eval or benchmark block is a few KiB; a MiB leaves room for noise after it


def log_lines(path: Path, since: int = 0, until: int | None = None) -> Iterator[str]:
    """The file's lines from byte ``since`` up to byte ``until`` (its end when None), decoded
    leniently, one at a time: a stage's own part of a log that later stages append to."""
    for raw in read.lines(path, since, until=until):
        yield raw.decode("utf-8", errors="replace")


def tail_window(path: Path, since: int = 0, size: int = TAIL_WINDOW, until: int | None = None) -> str:
    """The last ``size`` bytes after ``since`` (and before ``until``), from a line start where the
    window cuts one."""
    return read.tail(path, size, since, until)[0].decode("utf-8", errors="replace")


CLIPPED = "[… the start of this line is left out] "


def log_tail(path: str | Path, size: int, since: int = 0, lines: int | None = None) -> tuple[str, bool]:
    """The last ``lines`` lines (all when None) in the last ``size`` bytes of a log's part after byte
    ``since``, decoded leniently and ``printable``; True when something before them was left out. The one reader of a
    log's end (the progress line, the console's and the report's tails, a failure's cause, which rank
    failed): a last line longer than the window (an error that prints a whole tensor) shows its end,
    after ``CLIPPED``, where a window cut at a line start would show nothing. ``OSError`` when the log
    cannot be read (``read.Refused`` for a FIFO or a device: never a hang)."""
    data, cut = read.tail(path, size, since, whole_lines=False)
    if cut:
        fragment, _, rest = data.partition(b"\n")
        data = rest if rest.strip() else CLIPPED.encode() + fragment + rest
    text = printable(data.decode("utf-8", errors="replace"))
    if lines is None:
        return text, cut
    every = text.splitlines()
    return "\n".join(every[-lines:] if lines else []), cut or len(every) > lines


def contains(path: Path, needle: str, since: int = 0) -> bool:
    """Whether ``needle`` occurs after ``since``, read in chunks (overlapping by the needle's length)."""
    return read.contains(path, needle.encode(), since)


def extract_file(kind: str, path: Path, since: int = 0, until: int | None = None) -> dict[str, Any]:
    """``tipc.metrics.extract`` of a log file's part ``since``..``until``, without reading it whole."""
    from . import extract  # the package's table of extractors

    if kind == "train":
        return train_metrics_of_lines(log_lines(path, since, until))
    return extract(kind, tail_window(path, since, until=until))
