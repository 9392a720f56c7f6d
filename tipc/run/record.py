"""What a finished stage leaves behind: one line of ``results.jsonl``.

This is the contract between the runner (writes), the cluster merge, and the
report (reads). Keep it flat and JSON-native.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any, Iterable, Iterator


class Status(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    TIMEOUT = "timeout"
    HUNG = "hung"
    BLOCKED = "blocked"  # a prerequisite did not pass; not run
    SKIPPED = "skipped"  # not run on purpose: not applicable on this node, dropped by a skip rule, dry run...

    @property
    def ok(self) -> bool:
        return self in (Status.PASSED, Status.SKIPPED)


@dataclass(frozen=True)
class StageRecord:
    id: str
    kind: str  # StageKind value
    chain: str
    status: Status
    argv: tuple[str, ...] = ()
    env: dict[str, str | None] = field(default_factory=dict)
    cwd: str = ""
    log: str = ""  # absolute path of the stage's log
    returncode: int | None = None
    reason: str = ""
    start: float = 0.0  # unix time
    duration: float = 0.0  # seconds
    node_rank: int = 0
    host: str = ""
    model: str = ""
    mode: str = ""
    config: str = ""
    infer: dict[str, Any] | None = None  # InferCase fields for infer stages
    metrics: dict[str, Any] = field(default_factory=dict)  # parsed from the log (benchmark block, ips, accuracy)

    def to_json(self) -> str:
        d = asdict(self)
        d["status"] = self.status.value
        d["argv"] = list(self.argv)
        return json.dumps(d, sort_keys=True)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "StageRecord":
        known = {f for f in cls.__dataclass_fields__}
        kw = {k: v for k, v in d.items() if k in known}
        kw["status"] = Status(kw["status"])
        kw["argv"] = tuple(kw.get("argv", ()))
        return cls(**kw)


def read_records(lines: Iterable[str]) -> Iterator[StageRecord]:
    for line in lines:
        if line.strip():
            yield StageRecord.from_dict(json.loads(line))


@dataclass(frozen=True)
class RunInfo:
    """``run.json`` beside ``results.jsonl``: the facts a report header needs."""

    model: str
    mode: str
    config: str
    config_sha256: str = ""
    overrides: dict[str, str] = field(default_factory=dict)  # option name -> value as given
    tipc_version: str = ""
    paddle_version: str = ""  # from the target's interpreter, "" when it has no paddle
    python: str = ""  # the interpreter the stages ran with
    python_version: str = ""
    device: str = ""  # "cpu" | "gpu"
    host: str = ""
    node_rank: int = 0
    nodes: tuple[str, ...] = ()
    start: float = 0.0
    duration: float = 0.0
    notes: tuple[str, ...] = ()

    def to_json(self) -> str:
        d = asdict(self)
        d["nodes"] = list(self.nodes)
        d["notes"] = list(self.notes)
        return json.dumps(d, sort_keys=True, indent=1)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "RunInfo":
        known = {f for f in cls.__dataclass_fields__}
        kw = {k: v for k, v in d.items() if k in known}
        kw["nodes"] = tuple(kw.get("nodes", ()))
        kw["notes"] = tuple(kw.get("notes", ()))
        return cls(**kw)
