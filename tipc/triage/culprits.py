"""What a night's own bisection found, beside the night's results: ``culprits.json`` in its results folder.

One entry per new failure the night searched: the stage, the first bad commit (its sha, subject, author and
date), or why there is none, and the commands that found it, so that a person can run them again by hand.
Written by ``tipc.triage.night`` after the run; read by the report and the night's index. A file that does
not read is no culprit at all: the night's results stand without it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tipc.files import read
from tipc.files.write import write_atomic

CULPRITS = "culprits.json"
MAX_BYTES = 16 << 20


@dataclass(frozen=True, slots=True)
class Culprit:
    stage: str
    good: str  # the commit the search started from: the last night the stage passed
    bad: str  # tonight's commit
    sha: str = ""  # the first bad commit, "" when none was named
    subject: str = ""
    author: str = ""
    date: str = ""
    commands: tuple[str, ...] = ()  # what found it, one shell line each
    problem: str = ""  # why there is no culprit

    def line(self) -> str:
        if not self.sha:
            return f"no culprit: {self.problem}"
        return f"{self.sha[:12]} {self.subject} ({self.author}, {self.date})"


def write_culprits(folder: Path, culprits: Sequence[Culprit]) -> None:
    entries = [{**asdict(c), "commands": list(c.commands)} for c in culprits]
    write_atomic(folder / CULPRITS, json.dumps({"culprits": entries}, indent=1) + "\n")


def _culprit(entry: Any) -> Culprit:
    if not isinstance(entry, dict):
        raise ValueError(f"{entry!r:.60} is not an object")
    texts = {k: entry.get(k, "") for k in ("stage", "good", "bad", "sha", "subject", "author", "date", "problem")}
    commands = entry.get("commands", [])
    if not all(isinstance(v, str) for v in texts.values()) or not isinstance(commands, list):
        raise ValueError(f"{entry!r:.60} is not a culprit")
    return Culprit(**texts, commands=tuple(str(c) for c in commands))


def read_culprits(folder: Path) -> dict[str, Culprit]:
    """The culprits of the night in ``folder`` by stage id; none when there is no file or it does not read."""
    try:
        data = read.json_of(read.read_bytes(folder / CULPRITS, MAX_BYTES))
        entries = data.get("culprits") if isinstance(data, dict) else None
        return {c.stage: c for c in map(_culprit, entries if isinstance(entries, list) else [])}
    except (OSError, ValueError, RecursionError):
        return {}
