"""Figures from a log file in bounded memory: nightly logs of long trainings run to gigabytes.

Training figures need every step line, so the file is streamed line by line; an eval's
metrics and a predictor's benchmark block are the *last* block of their log, so a window
at its end is enough. ``since`` is where the stage's own part of an appended log begins.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .trainlog import train_metrics_of_lines

TAIL_WINDOW = 1 << 20  # an eval or benchmark block is a few KiB; a MiB leaves room for noise after it
_CHUNK = 1 << 16


def _start(f: io.BufferedReader, since: int) -> int:
    """``since``, or 0 when the file is now shorter (it was replaced: all of it is new)."""
    end = f.seek(0, io.SEEK_END)
    return since if since <= end else 0


def log_lines(path: Path, since: int = 0, until: int | None = None) -> Iterator[str]:
    """The file's lines from byte ``since`` up to byte ``until`` (its end when None), decoded
    leniently, one at a time: a stage's own part of a log that later stages append to."""
    with open(path, "rb") as f:
        start = _start(f, since)
        f.seek(start)
        left = None if until is None or until < start else until - start
        for raw in f:
            line = raw if left is None else raw[:left]
            if not line:
                return
            if left is not None:
                left -= len(line)
            yield line.decode("utf-8", errors="replace")


def tail_window(path: Path, since: int = 0, size: int = TAIL_WINDOW, until: int | None = None) -> str:
    """The last ``size`` bytes after ``since`` (and before ``until``), from a line start where the
    window cuts one."""
    with open(path, "rb") as f:
        start = _start(f, since)
        end = f.tell() if until is None or until < start else min(until, f.tell())
        cut = max(start, end - size)
        f.seek(cut)
        data = f.read(end - cut)
    if cut > start:
        data = data.partition(b"\n")[2]
    return data.decode("utf-8", errors="replace")


def contains(path: Path, needle: str, since: int = 0) -> bool:
    """Whether ``needle`` occurs after ``since``, read in chunks (overlapping by the needle's length)."""
    pattern = needle.encode()
    with open(path, "rb") as f:
        f.seek(_start(f, since))
        carry = b""
        while chunk := f.read(_CHUNK):
            if pattern in carry + chunk:
                return True
            carry = chunk[-(len(pattern) - 1) :] if len(pattern) > 1 else b""
    return False


def extract_file(kind: str, path: Path, since: int = 0, until: int | None = None) -> dict[str, Any]:
    """``tipc.metrics.extract`` of a log file's part ``since``..``until``, without reading it whole."""
    from . import extract  # the package's table of extractors

    if kind == "train":
        return train_metrics_of_lines(log_lines(path, since, until))
    return extract(kind, tail_window(path, since, until=until))
