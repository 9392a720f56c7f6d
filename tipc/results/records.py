"""What a run leaves behind: one ``StageRecord`` per line of ``results.jsonl``, one ``RunInfo`` in ``run.json``.

This is the contract between the runner (writes), the cluster merge and the report
(read). Keep it flat and JSON-native. ``SCHEMA`` is written into both files; readers
accept older files (schema 0: before run ids) and refuse newer ones by name.
``Status`` is where the meaning of a status lives: which ones fail a run, which ran.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields
from enum import Enum
from typing import Any

SCHEMA = 1


class Status(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    TIMEOUT = "timeout"
    HUNG = "hung"
    BLOCKED = "blocked"  # not run: a prerequisite did not pass (or its outputs are not there)
    SKIPPED = "skipped"  # not run on purpose: not applicable on this node, dropped by a skip rule

    @property
    def is_failure(self) -> bool:
        """A stage that ran and did not do its job: what makes a run fail (exit status 1).

        BLOCKED is not one: its cause is, and counting both would count one failure twice.
        A run whose stages were only blocked (a prerequisite deselected with ``-k`` and its
        outputs missing) is *incomplete*, which the report says, but not failed.
        """
        return self in (Status.FAILED, Status.TIMEOUT, Status.HUNG)

    @property
    def ran(self) -> bool:
        return self not in (Status.BLOCKED, Status.SKIPPED)


def run_verdict(statuses: Any) -> str:
    """"failed" when a stage failed, else "incomplete" when one was blocked, else "passed" ("empty": none)."""
    seen = {Status(s) for s in statuses}
    if not seen:
        return "empty"
    if any(s.is_failure for s in seen):
        return "failed"
    return "incomplete" if Status.BLOCKED in seen else "passed"


class RecordError(ValueError):
    """A JSON value that is not a valid record; the message names the field."""


def _check(name: str, value: Any, kinds: tuple[type, ...]) -> Any:
    if isinstance(value, bool) and bool not in kinds:
        raise RecordError(f"field {name!r} is {value!r}, expected {' or '.join(k.__name__ for k in kinds)}")
    if not isinstance(value, kinds) or (isinstance(value, float) and not math.isfinite(value)):
        raise RecordError(f"field {name!r} is {value!r}, expected {' or '.join(k.__name__ for k in kinds)}")
    return value


_NUMBER = (int, float)


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
    run_id: str = ""  # the run that ran this stage; another run's id marks a record carried over
    # Logs the stage appended to (train.log, workerlog.N) -> their size when it started: its own part follows.
    log_offsets: dict[str, int] = field(default_factory=dict)
    peak_rss_mb: float | None = None  # the largest resident size of the stage's process (or one it waited for)

    @property
    def key(self) -> tuple[str, str, int]:
        """What identifies a stage across runs: several configs may share a results folder."""
        return self.config, self.id, self.node_rank

    def to_json(self) -> str:
        d = asdict(self)
        d["status"] = self.status.value
        d["argv"] = list(self.argv)
        return json.dumps(d, sort_keys=True)

    @classmethod
    def from_dict(cls, d: Any) -> StageRecord:
        """A record from parsed JSON; ``RecordError`` names the first field that does not fit."""
        if not isinstance(d, dict):
            raise RecordError(f"expected a JSON object, found {type(d).__name__}")
        for required in ("id", "kind", "chain", "status"):
            if required not in d:
                raise RecordError(f"field {required!r} is missing")
        kw = {f.name: d[f.name] for f in fields(cls) if f.name in d}
        for name in ("id", "kind", "chain", "cwd", "log", "reason", "host", "model", "mode", "config", "run_id"):
            if name in kw:
                _check(name, kw[name], (str,))
        for name in ("start", "duration"):
            if name in kw:
                kw[name] = float(_check(name, kw[name], _NUMBER))
        if "node_rank" in kw:
            _check("node_rank", kw["node_rank"], (int,))
        if kw.get("returncode") is not None:
            _check("returncode", kw["returncode"], (int,))
        if kw.get("peak_rss_mb") is not None:
            kw["peak_rss_mb"] = float(_check("peak_rss_mb", kw["peak_rss_mb"], _NUMBER))
        for name in ("env", "metrics", "log_offsets"):
            if name in kw:
                _check(name, kw[name], (dict,))
        if kw.get("infer") is not None:
            _check("infer", kw["infer"], (dict,))
        argv = _check("argv", kw.get("argv", []), (list,))
        kw["argv"] = tuple(_check("argv item", a, (str,)) for a in argv)
        try:
            kw["status"] = Status(kw["status"])
        except ValueError:
            raise RecordError(f"field 'status' is {kw['status']!r}, expected one of "
                              f"{', '.join(s.value for s in Status)}") from None
        return cls(**kw)


@dataclass(frozen=True)
class RunInfo:
    """``run.json`` beside ``results.jsonl``: the facts a report header needs."""

    model: str
    mode: str
    config: str  # the first config of the run that wrote this folder
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
    run_id: str = ""
    configs: tuple[str, ...] = ()  # every config of this run that wrote into this folder
    ended: bool = False  # False while the run goes on, and forever when it was killed
    schema: int = SCHEMA

    def to_json(self) -> str:
        d = asdict(self)
        for name in ("nodes", "notes", "configs"):
            d[name] = list(d[name])
        return json.dumps(d, sort_keys=True, indent=1)

    @classmethod
    def from_dict(cls, d: Any) -> RunInfo:
        if not isinstance(d, dict):
            raise RecordError(f"expected a JSON object, found {type(d).__name__}")
        schema = d.get("schema", 0)
        if not isinstance(schema, int) or schema > SCHEMA:
            raise RecordError(f"schema {schema!r} is newer than this tipc reads ({SCHEMA}); upgrade tipc")
        for required in ("model", "mode", "config"):
            if required not in d:
                raise RecordError(f"field {required!r} is missing")
        kw = {f.name: d[f.name] for f in fields(cls) if f.name in d}
        for name in ("model", "mode", "config", "config_sha256", "tipc_version", "paddle_version", "python",
                     "python_version", "device", "host", "run_id"):
            if name in kw:
                _check(name, kw[name], (str,))
        for name in ("start", "duration"):
            if name in kw:
                kw[name] = float(_check(name, kw[name], _NUMBER))
        if "node_rank" in kw:
            _check("node_rank", kw["node_rank"], (int,))
        if "overrides" in kw:
            _check("overrides", kw["overrides"], (dict,))
        for name in ("nodes", "notes", "configs"):
            kw[name] = tuple(_check(f"{name} item", v, (str,)) for v in _check(name, kw.get(name, []), (list,)))
        if "ended" in kw:
            _check("ended", kw["ended"], (bool,))
        else:
            kw["ended"] = True  # schema 0 wrote run.json at the end only
        kw["schema"] = SCHEMA
        return cls(**kw)
