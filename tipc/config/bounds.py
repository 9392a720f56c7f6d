"""Limits on what a config can make tipc do: hostile or broken input is refused early, in bounded time.

* Only regular files are read, through the read door (``tipc.files.read``): a FIFO or ``/dev/zero``
  is refused without blocking. At most ``MAX_CONFIG_BYTES`` are read: real configs are under 10 KiB.
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
from pathlib import Path

from tipc.errors import ConfigError
from tipc.files.read import Refused, TooLarge, read_bytes

MAX_CONFIG_BYTES = 1024 * 1024
MAX_LINE_CHARS = 64 * 1024
MAX_STAGES = 10_000
EXCERPT_CHARS = 80
CONFIG_FILE = "a TIPC config file"


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``text`` cut to ``limit`` characters, with ``…`` when something was cut."""
    return text if len(text) <= limit else text[:limit] + "…"


def check_line(path: str, number: int, raw: str) -> None:
    """A ``ConfigError`` at line ``number`` when it is longer than ``MAX_LINE_CHARS``."""
    if len(raw) > MAX_LINE_CHARS:
        raise ConfigError(
            path,
            number,
            f"line of {len(raw)} characters, over the limit of {MAX_LINE_CHARS}: "
            f"expected a 'key:value' line, found '{excerpt(raw.strip())}'",
        )


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
    """The bytes of the regular file at ``path``, at most ``MAX_CONFIG_BYTES`` of them; anything else (missing,
    a directory, a FIFO, a device, too large) is a ``ConfigError`` saying what it found."""
    shown = str(path)
    if stat_path(path, expected) is None:
        what = "broken symlink (its target does not exist)" if os.path.islink(path) else "no such file"
        raise ConfigError(shown, 0, f"{what}: expected {expected}")
    try:
        return read_bytes(path, MAX_CONFIG_BYTES)
    except Refused as exc:
        hint = " (real ones are under 10 KiB)" if isinstance(exc, TooLarge) else ""
        raise ConfigError(shown, 0, f"{exc.strerror}: expected {expected}{hint}") from None
    except OSError as exc:
        raise _os_error(shown, exc, expected) from None


def _os_error(shown: str, exc: OSError, expected: str) -> ConfigError:
    if exc.errno == errno.ELOOP:
        return ConfigError(shown, 0, f"symlink loop (too many levels of symbolic links): expected {expected}")
    return ConfigError(shown, 0, f"cannot read the file: {exc.strerror or exc}")


def config_text(path: str | Path) -> str:
    """A config file's text, bounded and decoded as every reader reads it."""
    return decode_text(read_bounded(path), str(path))


def decode_text(data: bytes, path: str) -> str:
    nul = data.find(b"\x00")  # checked before decoding: binary files are rarely valid UTF-8 either
    if nul >= 0:
        raise binary_content(path, data.count(b"\n", 0, nul) + 1)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start]
        raise ConfigError(path, line, f"not UTF-8 text (byte 0x{bad:02x}): expected a text config") from None


def binary_content(path: str, line: int) -> ConfigError:
    return ConfigError(path, line, "binary content (NUL byte): expected a text config")
