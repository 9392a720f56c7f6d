"""The one door for reading: regular files only, never blocking, always bounded.

* Only regular files, after resolving links. A FIFO blocks a read forever and ``/dev/zero`` never
  ends, so the path is checked with ``stat``, opened non-blocking (opening a FIFO cannot hang), and
  checked again with ``fstat`` (the path may have been replaced in between).
* Whole reads (``read_bytes``) stop at a limit: a larger file is refused, not cut.
* Streams (``lines``, ``tail``, ``contains``) read at most the size the file had when it was opened
  (a log a stage keeps writing would otherwise never end), in chunks of ``CHUNK`` bytes; a line
  longer than ``max_line`` comes in pieces, so memory stays bounded whatever the newlines.
* A refusal is ``Refused``, an ``OSError``: every reader that copes with a file it cannot read (a
  missing log, a permission) copes with a FIFO, a device or a huge file the same way.
* ``inside``: a path found inside a record (a log, an image, an output) is read only when it lies in
  one of the run's roots; a crafted record cannot make a report show ``/etc/shadow``.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

CHUNK = 1 << 16
SEARCH_CHUNK = 1 << 20  # a search reads more at once: a report searches thousands of logs of a MB
MAX_LINE = 1 << 20  # a log line longer than this comes in pieces (no real figure is on such a line)

# st_mode tests → how a message names what the path is instead of a regular file.
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class Refused(OSError):
    """A file the door does not read: not a regular file, too large, or outside the run's roots."""

    def __init__(self, path: str | Path, reason: str) -> None:
        super().__init__(errno.EINVAL, reason, str(path))


class TooLarge(Refused):
    def __init__(self, path: str | Path, size: int, limit: int) -> None:
        super().__init__(path, f"is {size} bytes, over the limit of {limit} bytes")


def check_regular(path: str | Path, found: os.stat_result, limit: int | None = None) -> None:
    """``Refused`` unless ``found`` is a regular file (of at most ``limit`` bytes)."""
    if not stat.S_ISREG(found.st_mode):
        kind = next((name for test, name in _KINDS if test(found.st_mode)), "not a regular file")
        raise Refused(path, f"is {kind}")
    if limit is not None and found.st_size > limit:
        raise TooLarge(path, found.st_size, limit)


@contextlib.contextmanager
def open_regular(path: str | Path, limit: int | None = None) -> Iterator[tuple[BinaryIO, int]]:
    """The open file and its size at opening; ``Refused`` (or the ``OSError`` of ``stat``) otherwise."""
    check_regular(path, os.stat(path), limit)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as file:
        found = os.fstat(fd)
        check_regular(path, found, limit)
        yield file, found.st_size


def read_bytes(path: str | Path, limit: int) -> bytes:
    """The whole regular file at ``path``; ``Refused`` when it holds more than ``limit`` bytes."""
    with open_regular(path, limit) as (file, size):
        # As much as the file holds, and one more: ``read(limit)`` would allocate the whole limit first.
        data = file.read(min(size, limit) + 1)
        if len(data) > size:  # it grew since fstat: the rest, up to one past the limit, to catch it
            data += file.read(limit + 1 - len(data))
    if len(data) > limit:
        raise TooLarge(path, len(data), limit)
    return data


def _start(since: int, size: int) -> int:
    """``since``, or 0 when the file is now shorter (it was replaced: all of it is new)."""
    return since if 0 <= since <= size else 0


def _end(start: int, until: int | None, size: int) -> int:
    """``until`` (where the next writer began), else the size at opening; an end before the start is none."""
    return size if until is None or until < start else min(until, size)


def lines(path: str | Path, since: int = 0, max_line: int = MAX_LINE, until: int | None = None) -> Iterator[bytes]:
    """The file's lines from byte ``since`` to byte ``until`` (its size at opening when None),
    newlines kept; a line longer than ``max_line`` comes as several pieces."""
    with open_regular(path) as (file, size):
        start = _start(since, size)
        file.seek(start)
        yield from split_lines(_chunks(file, _end(start, until, size) - start), max_line)


def numbered_lines(
    path: str | Path, max_line: int, limit: int | None = None, until: int | None = None
) -> Iterator[tuple[int, bytes | None]]:
    """(1-based number, line) of each line of the file, newline dropped; None for a line longer than
    ``max_line`` (it was never held whole). ``limit``: the file is refused when larger; ``until``: the
    lines before that byte only (what a first reading saw of a file that may grow since)."""
    with open_regular(path, limit) as (file, size):
        number, long = 1, False
        for piece in split_lines(_chunks(file, _end(0, until, size)), max_line + 1):
            whole = piece.endswith(b"\n")
            if not long and whole:
                yield number, piece[:-1]
            elif not long and len(piece) > max_line:
                long = True
            elif not long:
                yield number, piece  # the last line, without a newline
            if whole:
                if long:
                    yield number, None
                number, long = number + 1, False
        if long:
            yield number, None


def json_of(raw: bytes | str) -> Any:
    """A JSON value; ``ValueError`` for anything else, bad UTF-8 and nesting too deep included."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def _chunks(file: BinaryIO, left: int, size: int = CHUNK) -> Iterator[bytes]:
    while left > 0 and (chunk := file.read(min(size, left))):
        left -= len(chunk)
        yield chunk


def split_lines(chunks: Iterable[bytes], max_line: int = MAX_LINE) -> Iterator[bytes]:
    """Chunks of a stream as lines of at most ``max_line`` bytes, however the newlines fall; each
    byte is copied and searched a bounded number of times (a 1 GB line costs no more than 1 GB of lines)."""
    buffer = bytearray()
    searched = 0  # no newline before this offset of the buffer
    for chunk in chunks:
        buffer += chunk
        pos = 0
        while True:
            cut = buffer.find(b"\n", max(pos, searched), pos + max_line)
            if cut >= 0:
                yield bytes(buffer[pos : cut + 1])
                pos = cut + 1
            elif len(buffer) - pos >= max_line:
                yield bytes(buffer[pos : pos + max_line])
                pos += max_line
            else:
                searched = len(buffer)
                break
        del buffer[:pos]
        searched -= pos
    if buffer:
        yield bytes(buffer)


def tail(
    path: str | Path, size: int, since: int = 0, until: int | None = None, *, whole_lines: bool = True
) -> tuple[bytes, bool]:
    """The last ``size`` bytes after byte ``since`` (and before ``until``), from a line start where
    the window cuts one (``whole_lines``; else as cut); True when something before it was left out."""
    with open_regular(path) as (file, length):
        start = _start(since, length)
        end = _end(start, until, length)
        cut = max(start, end - size)
        file.seek(cut)
        data = file.read(end - cut)
    if cut > start and whole_lines:
        data = data.partition(b"\n")[2]  # the first line is a fragment
    return data, cut > start


def contains(path: str | Path, needle: bytes, since: int = 0) -> bool:
    """Whether ``needle`` occurs after byte ``since``, read in chunks (overlapping by its length)."""
    return contains_any(path, (needle,), since)


def contains_any(path: str | Path, needles: Sequence[bytes], since: int = 0) -> bool:
    """Whether one of ``needles`` occurs after byte ``since``: one pass over the file, in chunks
    (overlapping by the longest needle's length)."""
    keep = max(len(n) for n in needles) - 1
    with open_regular(path) as (file, size):
        start = _start(since, size)
        file.seek(start)
        carry = b""
        for chunk in _chunks(file, size - start, SEARCH_CHUNK):
            window = carry + chunk
            if any(_occurs(needle, window) for needle in needles):
                return True
            carry = chunk[-keep:] if keep else b""
    return False


FALSE_STARTS = 16  # first bytes that began no match before ``_occurs`` falls back to the general search


def _occurs(needle: bytes, window: bytes) -> bool:
    """``needle in window``. A search of one byte is memchr's, several times faster than a search of several:
    a needle's first byte is searched for first (a report searches thousands of logs of a MB for words whose
    first letter, the P of "Predicts of ", few of their lines hold); after a few false starts, the rest of the
    window is searched as usual."""
    first = needle[:1]
    at = window.find(first)
    for _ in range(FALSE_STARTS):
        if at == -1:
            return False
        if window.startswith(needle, at):
            return True
        at = window.find(first, at + 1)
    return at != -1 and window.find(needle, at) != -1


@functools.lru_cache(maxsize=64)
def _real_root(root: str) -> str:
    """A root's real path: a report asks of one run's few roots for each of its thousands of logs."""
    return os.path.realpath(root)


def inside(path: str | Path, roots: Iterable[str | Path]) -> bool:
    """Whether ``path``, links resolved, lies in one of ``roots`` (links resolved too)."""
    real = os.path.realpath(path)
    for root in roots:
        base = _real_root(os.fspath(root))
        with contextlib.suppress(ValueError):  # on different drives (never on POSIX)
            if os.path.commonpath([real, base]) == base:
                return True
    return False
