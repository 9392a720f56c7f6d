"""Log text made safe to show, and log lines as their messages (the ``[ts] ppocr INFO:`` prefix removed)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Terminal commands a log may carry: CSI (colours, cursor moves), OSC (window titles, hyperlinks,
# up to BEL or ST), and the two-byte escapes.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-~]")
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` safe for a terminal or a page: escape sequences removed (a log must not retitle or
    garble the reader's terminal), a carriage return read as a line break (progress bars), any
    other control character shown as ``\\xNN``. Tabs and line breaks stay."""
    if text.isprintable():  # most of a report's strings; it has none of the characters below
        return text
    text = _ESCAPES.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


# "[2026/11/30 02:34:48] ppocr INFO:"; the message keeps its leading space.
_PREFIX = re.compile(r"^\[\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?\] \S+ [A-Z]+:")


def messages(text: str) -> Iterator[tuple[bool, str]]:
    """(had a logger prefix, message) for every line of ``text``."""
    return messages_of_lines(text.splitlines())


def messages_of_lines(lines: Iterable[str]) -> Iterator[tuple[bool, str]]:
    """``messages`` of lines given one at a time."""
    for raw in lines:
        for line in _ANSI.sub("", raw).splitlines():
            match = _PREFIX.match(line)
            yield (True, line[match.end() :]) if match else (False, line)
