"""Log lines as their messages: ANSI codes and the ``[ts] ppocr INFO:`` prefix removed."""

from __future__ import annotations

import re
from typing import Iterator

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# "[2026/11/30 02:34:48] ppocr INFO:"; the message keeps its leading space.
_PREFIX = re.compile(r"^\[\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?\] \S+ [A-Z]+:")


def messages(text: str) -> Iterator[tuple[bool, str]]:
    """(had a logger prefix, message) for every line of ``text``."""
    for line in _ANSI.sub("", text).splitlines():
        match = _PREFIX.match(line)
        yield (True, line[match.end():]) if match else (False, line)
