"""What a dialect's figure readers share: the ``name: number`` pairs of a log line, and a dialect's ``figures``
(``Dialect.figures``) made of one reader per stage kind, each reading only its stage's part of the log. Each
suite's own readers live in its dialect package."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from tipc.metrics.logfile import log_lines
from tipc.metrics.logtext import messages_of_lines
from tipc.plan.model import Stage, StageKind

NUMBER = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|nan|inf"
_PAIR = re.compile(rf"([A-Za-z_][\w.]*): ({NUMBER})(?=,|\s|$)")


def marked_messages(lines: Iterable[str], mark: str) -> Iterable[str]:
    """The messages of the lines that hold ``mark`` (a cheap test before any pattern)."""
    return (message for _, message in messages_of_lines(line for line in lines if mark in line))


def last_pairs(lines: Iterable[str], mark: str, head: re.Pattern[str]) -> dict[str, float]:
    """The ``name: number`` pairs after ``head`` on the last line that has it (``mark``: a substring it holds)."""
    found: dict[str, float] = {}
    for message in marked_messages(lines, mark):
        match = head.search(message)
        if match is not None:
            found = {name: float(value) for name, value in _PAIR.findall(message[match.end() :])}
    return found


Reader = Callable[[Iterable[str]], dict[str, float]]


def reader(by_kind: Mapping[StageKind, Reader]) -> Callable[[Stage, Path, int, int | None], dict[str, Any]]:
    """A dialect's ``figures``: the reader of the stage's kind over its part of the log."""

    def figures(stage: Stage, log: Path, since: int, until: int | None) -> dict[str, Any]:
        read = by_kind.get(stage.kind)
        return {} if read is None else dict(read(log_lines(log, since, until)))

    return figures
