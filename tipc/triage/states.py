"""A cell's state across nights: what a release engineer reads first.

A cell is one stage of one config in one mode. Tonight's outcome alone says "failed"; beside the cell's
earlier nights it says whether that is new, how long it has lasted, whether the same commit of the target
also passed (flaky), or whether the machine, not the model, ended it (infra). Pure: outcomes in, a state out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from tipc.results.records import Status


class Outcome(str, Enum):
    """What a cell did on one night, as states read it."""

    PASSED = "passed"
    FAILED = "failed"  # failed, timed out or hung: the stage did not do its job
    INFRA = "infra"  # the machine ended it: the OOM killer, the scheduler, a node that went away
    NOT_RUN = "not_run"  # blocked by a prerequisite, skipped, or no record at all


def outcome_of(status: Status) -> Outcome:
    """A record's status as a night's outcome: a golden check that only differs (reported, not failed) counts
    as a pass; one with no golden to judge by judged nothing."""
    if status.is_failure:
        return Outcome.FAILED
    if status is Status.INFRA:  # the machine's, not the model's: neither a pass nor a failure of the cell
        return Outcome.INFRA
    if status in (Status.PASSED, Status.DIFFERS):
        return Outcome.PASSED
    return Outcome.NOT_RUN


class State(str, Enum):
    PASSING = "passing"
    NEW_FAILURE = "new_failure"
    STILL_FAILING = "still_failing"
    FIXED = "fixed"
    FLAKY = "flaky"
    INFRA = "infra"
    NOT_RUN = "not_run"


# The order a night's page lists cells in: what needs a person first.
ATTENTION = (
    State.NEW_FAILURE,
    State.FLAKY,
    State.INFRA,
    State.STILL_FAILING,
    State.NOT_RUN,
    State.FIXED,
    State.PASSING,
)


@dataclass(frozen=True, slots=True)
class Night:
    """One earlier night of a cell: its run, when it started, the target's commit ("" when unknown)."""

    run_id: str
    start: float
    commit: str
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class CellState:
    state: State
    since: str = ""  # still failing: the run id of the night the failure began
    nights: int = 0  # still failing: how many nights in a row, tonight included

    def text(self) -> str:
        if self.state is State.STILL_FAILING:
            return f"still failing: {self.nights} nights, since {self.since}"
        return str(self.state.value).replace("_", " ")


def state_of(tonight: Outcome, commit: str, earlier: Sequence[Night], retried_to_pass: bool = False) -> CellState:
    """Tonight's state of a cell from tonight's outcome at ``commit`` and its ``earlier`` nights (newest first).

    ``retried_to_pass``: tonight it failed, then passed on a re-run (``--confirm``, a rerun plugin)."""
    if tonight is Outcome.NOT_RUN:
        return CellState(State.NOT_RUN)
    if tonight is Outcome.INFRA:
        return CellState(State.INFRA)
    judged = [n for n in earlier if n.outcome in (Outcome.PASSED, Outcome.FAILED)]
    other = Outcome.FAILED if tonight is Outcome.PASSED else Outcome.PASSED
    if retried_to_pass or (commit and any(n.commit == commit and n.outcome is other for n in judged)):
        return CellState(State.FLAKY)  # one commit, both outcomes: not the change's doing
    last = judged[0].outcome if judged else None
    if tonight is Outcome.PASSED:
        return CellState(State.FIXED if last is Outcome.FAILED else State.PASSING)
    streak = 0
    for night in judged:
        if night.outcome is not Outcome.FAILED:
            break
        streak += 1
    if not streak:
        return CellState(State.NEW_FAILURE)
    return CellState(State.STILL_FAILING, since=judged[streak - 1].run_id, nights=streak + 1)
