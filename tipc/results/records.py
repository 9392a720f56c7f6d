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

from tipc.schedule.policy import parse_shard

SCHEMA = 1


class Status(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    TIMEOUT = "timeout"
    HUNG = "hung"
    BLOCKED = "blocked"  # not run: a prerequisite did not pass (or its outputs are not there)
    SKIPPED = "skipped"  # not run on purpose: not applicable on this node, dropped by a skip rule
    NO_GOLDEN = "no_golden"  # a golden check with no golden file to judge by: said, not failed
    DIFFERS = "differs"  # a golden check with findings, reported but not failing (--fail-on without golden)
    INFRA = "infra"  # the machine ended it (scheduler, OOM killer, lost node), not the model (tipc.run.infra)

    @property
    def is_failure(self) -> bool:
        """A stage that ran and did not do its job: what makes a run fail (exit status 1).

        BLOCKED is not one: its cause is, and counting both would count one failure twice.
        A run whose stages were only blocked (a prerequisite deselected with ``-k`` and its
        outputs missing) is *incomplete*, which the report says; its exit status is non-zero
        all the same (``tipc.results.outcome``).
        """
        return self in (Status.FAILED, Status.TIMEOUT, Status.HUNG)

    @property
    def ran(self) -> bool:
        return self not in (Status.BLOCKED, Status.SKIPPED)


def run_verdict(statuses: Any) -> str:
    """ "failed" when a stage failed, else "infra" when the machine ended one, else "incomplete" when one was
    blocked, else "passed" ("empty": none)."""
    seen = {Status(s) for s in statuses}
    if not seen:
        return "empty"
    if any(s.is_failure for s in seen):
        return "failed"
    if Status.INFRA in seen:
        return "infra"
    return "incomplete" if Status.BLOCKED in seen else "passed"


# What ended an infra stage (its ``infra`` evidence's kind; tipc.run.infra judges it): the scheduler, the
# out-of-memory killer, a node of its job that went silent.
INFRA_KINDS = ("scheduler", "oom", "node")


class RecordError(ValueError):
    """A JSON value that is not a valid record; the message names the field."""


# How each JSON field is checked: its kinds, whether null is allowed, and what it becomes.
_TEXT, _INT, _NUMBER, _OBJECT, _FLAG = (str,), (int,), (int, float), (dict,), (bool,)


@dataclass(frozen=True, slots=True)
class _Spec:
    kinds: tuple[type, ...]
    nullable: bool = False
    items: tuple[type, ...] | None = None  # a list of these, read as a tuple


def _check(name: str, value: Any, kinds: tuple[type, ...]) -> Any:
    bad = (
        (isinstance(value, bool) and bool not in kinds)
        or not isinstance(value, kinds)
        or (isinstance(value, float) and not math.isfinite(value))
    )
    if bad:
        raise RecordError(f"field {name!r} is {value!r}, expected {' or '.join(k.__name__ for k in kinds)}")
    return value


def _read_fields(d: Any, specs: dict[str, _Spec], required: tuple[str, ...]) -> dict[str, Any]:
    """The known fields of a parsed JSON object, each checked against its spec; ``RecordError``
    names the first one that does not fit. Numbers become floats where the spec says float."""
    if not isinstance(d, dict):
        raise RecordError(f"expected a JSON object, found {type(d).__name__}")
    for name in required:
        if name not in d:
            raise RecordError(f"field {name!r} is missing")
    kw = {}
    for name, spec in specs.items():
        if name not in d or (spec.nullable and d[name] is None):
            continue
        value = _check(name, d[name], spec.kinds)
        if spec.items is not None:
            value = tuple(_check(f"{name} item", item, spec.items) for item in value)
        elif spec.kinds == _NUMBER:
            value = float(value)
        kw[name] = value
    return kw


@dataclass(frozen=True)
class StageRecord:
    id: str
    kind: str  # StageKind value
    chain: str
    status: Status
    argv: tuple[str, ...] = ()
    env: dict[str, str | None] = field(default_factory=dict)
    cwd: str = ""  # the target checkout; in a results.jsonl relative to its <mode> folder (tipc.results.folder)
    log: str = ""  # absolute path of the stage's log (in a results.jsonl, relative like cwd)
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
    # The stage's peak memory: the largest sum over its process tree (launched ranks, DataLoader
    # workers), sampled while it ran (tipc.run.treemem); records from before that hold the root's.
    peak_rss_mb: float | None = None
    process_peak_rss_mb: float | None = None  # the root process's own peak (wait4), beside the tree's
    shard: str = ""  # "K/N": the part of a split matrix that ran it (a shard is a run of its own)
    # Why a failed stage failed (tipc.metrics.causes): a kind ("missing-module", "cuda", ...) and a
    # signature that every failure of one cause shares; "" for a stage that did not fail (and older records).
    cause_kind: str = ""
    cause: str = ""
    # Every execution of the stage, in order, when a plugin ran it more than once in the run
    # (pytest-rerunfailures, pytest-retry): each attempt's status, reason, returncode, start and
    # duration; the record's own fields are the last attempt's. () (older files too): it ran once.
    attempts: tuple[dict[str, Any], ...] = ()
    # The cell's state across nights (tipc.triage.states: passing, new_failure, still_failing, fixed,
    # flaky, infra, not_run), judged against the history when the stage ended; "" for older records.
    state: str = ""
    state_since: str = ""  # still failing: the run id of the night the failure began
    state_nights: int = 0  # still failing: nights in a row, tonight's included
    # An infra stage's evidence (tipc.run.infra): its kind (scheduler, oom, node) and what showed it; {} otherwise.
    infra: dict[str, str] = field(default_factory=dict)

    @property
    def stopped_by_scheduler(self) -> bool:
        """The scheduler ended it (a cancel, a time limit, a preemption): its run was stopped, not only it."""
        return self.infra.get("kind") == INFRA_KINDS[0]

    @property
    def flaky(self) -> bool:
        """Passed on a later attempt: it passed, and it failed before in this run."""
        return self.status is Status.PASSED and len(self.attempts) > 1

    @property
    def flaky_note(self) -> str:
        """What the report says of a flaky stage ("" for any other)."""
        tries = len(self.attempts)
        return f"flaky: passed on attempt {tries}, after {tries - 1} that did not" if self.flaky else ""

    def attempt(self) -> dict[str, Any]:
        """This execution as one entry of ``attempts``."""
        return {
            "status": self.status.value,
            "reason": self.reason,
            "returncode": self.returncode,
            "start": self.start,
            "duration": self.duration,
        }

    @property
    def key(self) -> tuple[str, str, int]:
        """What identifies a stage across runs: several configs may share a results folder."""
        return self.config, self.id, self.node_rank

    def to_json(self) -> str:
        # Field by field rather than ``asdict``: the values are JSON already, and ``asdict``'s deep
        # copies cost more than the write (twice per stage: the running entry and the record).
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["status"] = self.status.value
        d["argv"] = list(self.argv)
        d["attempts"] = list(self.attempts)
        return json.dumps(d, sort_keys=True)

    @classmethod
    def from_dict(cls, d: Any, *, checked: bool = False) -> StageRecord:
        """A record from parsed JSON; ``RecordError`` names the first field that does not fit.
        ``checked``: ``d`` was read as a record before (a later reading of the same line): its fields
        are taken as they are, which makes a reading of many records some times faster."""
        if checked:
            return cls(**_checked_fields(d))
        kw = _read_fields(d, _STAGE_FIELDS, ("id", "kind", "chain", "status"))
        try:
            kw["status"] = Status(kw["status"])
        except ValueError:
            raise RecordError(
                f"field 'status' is {kw['status']!r}, expected one of {', '.join(s.value for s in Status)}"
            ) from None
        _check_shard(kw.get("shard", ""))
        return cls(**kw)


_STAGE_FIELDS = {
    **dict.fromkeys(
        (
            "id",
            "kind",
            "chain",
            "status",
            "cwd",
            "log",
            "reason",
            "host",
            "model",
            "mode",
            "config",
            "run_id",
            "shard",
            "cause_kind",
            "cause",
            "state",
            "state_since",
        ),
        _Spec(_TEXT),
    ),
    "argv": _Spec((list,), items=_TEXT),
    "attempts": _Spec((list,), items=_OBJECT),
    **dict.fromkeys(("env", "metrics", "log_offsets", "infra"), _Spec(_OBJECT)),
    "infer": _Spec(_OBJECT, nullable=True),
    **dict.fromkeys(("start", "duration"), _Spec(_NUMBER)),
    **dict.fromkeys(("peak_rss_mb", "process_peak_rss_mb"), _Spec(_NUMBER, nullable=True)),
    **dict.fromkeys(("node_rank", "state_nights"), _Spec(_INT)),
    "returncode": _Spec(_INT, nullable=True),
}


_LISTS = tuple(name for name, spec in _STAGE_FIELDS.items() if spec.items is not None)
_FLOATS = tuple(name for name, spec in _STAGE_FIELDS.items() if spec.kinds == _NUMBER)


def _checked_fields(d: dict[str, Any]) -> dict[str, Any]:
    """``_read_fields`` of an object it read before: the same values, without the checks (a null
    where null is allowed is the field's default, None, either way)."""
    kw = {name: value for name, value in d.items() if name in _STAGE_FIELDS}
    kw["status"] = Status(kw["status"])
    for name in _LISTS:
        if name in kw:
            kw[name] = tuple(kw[name])
    for name in _FLOATS:
        if kw.get(name) is not None:
            kw[name] = float(kw[name])
    return kw


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
    shard: str = ""  # "K/N" when this run was one part of a split matrix
    partition: str = ""  # that split's fingerprint: the shards of one split share it (tipc merge checks)
    run_group: str = ""  # the night this shard or node belongs to: tipc merge joins one group's parts
    folder: str = ""  # where the results folder was when written: its records' paths are relative to it
    target_commit: str = ""  # the full sha of the target repo's HEAD ("" when it is no git checkout)
    target_dirty: bool = False  # its tracked files differed from that commit
    compared_with: str = ""  # the run id of the earlier night its report compared with
    schema: int = SCHEMA

    def to_json(self) -> str:
        d = asdict(self)
        for name in ("nodes", "notes", "configs"):
            d[name] = list(d[name])
        return json.dumps(d, sort_keys=True, indent=1)

    @classmethod
    def from_dict(cls, d: Any) -> RunInfo:
        if isinstance(d, dict):
            schema = d.get("schema", 0)
            if not isinstance(schema, int) or schema > SCHEMA:
                raise RecordError(f"schema {schema!r} is newer than this tipc reads ({SCHEMA}); upgrade tipc")
        kw = _read_fields(d, _RUN_FIELDS, ("model", "mode", "config"))
        _check_shard(kw.get("shard", ""))
        kw.setdefault("ended", True)  # schema 0 wrote run.json at the end only
        return cls(**kw)


def _check_shard(shard: str) -> None:
    """A shard is ``K/N`` (``tipc merge`` orders and counts shards by it) or empty."""
    if shard:
        try:
            parse_shard(shard)
        except ValueError as exc:
            raise RecordError(f"field 'shard' is {exc}") from None


_RUN_FIELDS = {
    **dict.fromkeys(
        (
            "model",
            "mode",
            "config",
            "config_sha256",
            "tipc_version",
            "paddle_version",
            "python",
            "python_version",
            "device",
            "host",
            "run_id",
            "shard",
            "partition",
            "run_group",
            "folder",
            "target_commit",
            "compared_with",
        ),
        _Spec(_TEXT),
    ),
    **dict.fromkeys(("start", "duration"), _Spec(_NUMBER)),
    "node_rank": _Spec(_INT),
    "overrides": _Spec(_OBJECT),
    **dict.fromkeys(("nodes", "notes", "configs"), _Spec((list,), items=_TEXT)),
    **dict.fromkeys(("ended", "target_dirty"), _Spec(_FLAG)),
}
