"""Limits on what a config can make tipc do: hostile or broken input is refused early, in bounded time.

* Only regular files are read. A FIFO would block the read forever and ``/dev/zero`` never ends, so the
  path is checked with ``stat`` before it is opened, opened non-blocking (opening a FIFO cannot hang),
  and checked again with ``fstat`` (the path may have been replaced in between).
* At most ``MAX_CONFIG_BYTES`` are read: real configs are under 10 KiB.
* No line is longer than ``MAX_LINE_CHARS`` (checked by the parser, also for text that never was a
  file), which bounds every value: later steps split, pair and name values in time linear in their
  length, so a plan of the longest allowed values is still quick.
* ``|`` lists multiply into stages (gpu entries × autocast × trainers × the infer sweep): a plan of
  more than ``MAX_STAGES`` is refused before one stage is made (real plans have tens).
* Error messages quote an ``excerpt`` of what they found, never a whole line or value.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from tipc.errors import ConfigError

MAX_CONFIG_BYTES = 1024 * 1024
MAX_LINE_CHARS = 64 * 1024
MAX_STAGES = 10_000
EXCERPT_CHARS = 80
CONFIG_FILE = "a TIPC config file"

# st_mode tests → how a message names what the path is instead of a regular file.
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``text`` cut to ``limit`` characters, with ``…`` when something was cut."""
    return text if len(text) <= limit else text[:limit] + "…"


def stat_path(path: str | Path, expected: str = CONFIG_FILE) -> os.stat_result | None:
    """``os.stat`` of ``path``; None when nothing is there. A symlink loop, or a path that cannot be
    looked at (permissions, a name too long), is a ``ConfigError`` naming the path."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise _os_error(str(path), exc, expected) from None


def read_bounded(path: str | Path, expected: str = CONFIG_FILE) -> bytes:
    """The bytes of the regular file at ``path``, at most ``MAX_CONFIG_BYTES`` of them; anything else
    (missing, a directory, a FIFO, a device, too large) is a ``ConfigError`` saying what it found."""
    shown = str(path)
    found = stat_path(path, expected)
    if found is None:
        what = "broken symlink (its target does not exist)" if os.path.islink(path) else "no such file"
        raise ConfigError(shown, 0, f"{what}: expected {expected}")
    _check_regular(shown, found, expected)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise _os_error(shown, exc, expected) from None
    with os.fdopen(fd, "rb") as file:
        _check_regular(shown, os.fstat(fd), expected)
        data = file.read(MAX_CONFIG_BYTES + 1)  # one more: a file that grew since fstat is still caught
    if len(data) > MAX_CONFIG_BYTES:
        raise _too_large(shown, len(data), expected)
    return data


def _check_regular(shown: str, found: os.stat_result, expected: str) -> None:
    if not stat.S_ISREG(found.st_mode):
        kind = next((name for test, name in _KINDS if test(found.st_mode)), "not a regular file")
        raise ConfigError(shown, 0, f"is {kind}: expected {expected}")
    if found.st_size > MAX_CONFIG_BYTES:
        raise _too_large(shown, found.st_size, expected)


def _too_large(shown: str, size: int, expected: str) -> ConfigError:
    return ConfigError(
        shown,
        0,
        f"is {size} bytes, over the limit of {MAX_CONFIG_BYTES} bytes: expected {expected} "
        f"(real ones are under 10 KiB)",
    )


def _os_error(shown: str, exc: OSError, expected: str) -> ConfigError:
    if exc.errno == errno.ELOOP:
        return ConfigError(shown, 0, f"symlink loop (too many levels of symbolic links): expected {expected}")
    return ConfigError(shown, 0, f"cannot read the file: {exc.strerror or exc}")
