"""Whether a stage may run, from what its prerequisites did (or left on disk).

One failed train is one failure: everything downstream is BLOCKED with a
reason that names the stage that actually failed and its log, never re-run and
never counted again. A stage whose inputs (files no stage of the plan makes, e.g. the exported
model a paddle2onnx conversion reads) are missing is BLOCKED naming the first. A prerequisite
that is not part of this session (left out with ``-k`` or ``--lf``) is satisfied by its outputs
on disk when an earlier run of the same plan passed it, so that one inference case can be re-run against an
existing export — never against the leftovers of another config.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tipc.plan.model import Plan, Stage
from tipc.results.records import StageRecord, Status

NOT_RANK0 = "not applicable: trainer 0 owns the model"

_VERBS = {
    Status.FAILED: "failed",
    Status.TIMEOUT: "timed out",
    Status.HUNG: "hung",
    Status.INFRA: "was ended by the machine",
}


@dataclass(frozen=True, slots=True)
class Decision:
    status: Status | None  # None: run the stage
    reason: str = ""

    @property
    def runs(self) -> bool:
        return self.status is None


RUN = Decision(None)


def missing_outputs(stage: Stage, cwd: Path) -> tuple[str, ...]:
    """The declared outputs of ``stage`` that are not under ``cwd`` (paths as the plan spells them)."""
    return tuple(out for out in stage.outputs if not (cwd / out).exists())


def _blocked_by(req: Stage, record: StageRecord) -> Decision:
    if record.status is Status.BLOCKED:
        return Decision(Status.BLOCKED, record.reason)  # name the root cause, not the messenger
    return Decision(Status.BLOCKED, f"blocked: {req.name} {_VERBS[record.status]} (see {record.log or req.log})")


def _from_disk(req: Stage, include_hint: Callable[[Stage], str], passed_before: Callable[[Stage], bool]) -> Decision:
    missing = missing_outputs(req, Path(req.cwd)) if req.outputs else ("(it declares no outputs to check)",)
    if missing:
        return Decision(
            Status.BLOCKED,
            f"blocked: {req.name} is not in this run and its outputs are missing ({missing[0]}); {include_hint(req)}",
        )
    if not passed_before(req):
        return Decision(
            Status.BLOCKED,
            f"blocked: {req.name} is not in this run and its outputs on disk "
            f"were not made by a passed run of this plan; {include_hint(req)}",
        )
    return RUN


def not_applicable(stage: Stage, node_rank: int) -> bool:
    """Multi-node: only trainer 0's node has the model that eval, export and infer read."""
    return stage.rank0_only and node_rank != 0


def decide(
    stage: Stage,
    plan: Plan,
    done: Mapping[str, StageRecord],
    passed_before: Callable[[Stage], bool],
    node_rank: int = 0,
    include_hint: Callable[[Stage], str] = lambda s: f"run {s.id} first",
) -> Decision:
    """``done``: the records of this session's finished stages, by stage id; ``passed_before``:
    whether an earlier run passed a stage exactly as planned (its outputs may then stand in)."""
    if not_applicable(stage, node_rank):
        return Decision(Status.SKIPPED, NOT_RANK0)
    absent = [path for path in stage.inputs if not (Path(stage.cwd) / path).exists()]
    if absent:
        return Decision(
            Status.BLOCKED,
            f"blocked: {stage.name} reads {absent[0]}, which is not there and no stage of this plan makes it "
            "(export the model first: a train config's export in the same run, or the suite's prepare.sh)",
        )
    for req_id in stage.requires:
        req = plan.stage(req_id)
        record = done.get(req_id)
        if record is not None and record.status is Status.PASSED:
            continue
        if record is not None and record.status is not Status.SKIPPED:
            return _blocked_by(req, record)
        decision = _from_disk(req, include_hint, passed_before)
        if not decision.runs:
            return decision
    return RUN
