"""A cell's state from tonight's outcome and its earlier nights, newest first."""

from __future__ import annotations

import pytest

from tipc.results.records import Status
from tipc.triage.states import CellState, Night, Outcome, State, outcome_of, state_of

P, F, X, N = Outcome.PASSED, Outcome.FAILED, Outcome.INFRA, Outcome.NOT_RUN


def nights(*outcomes: tuple[Outcome, str]) -> list[Night]:
    """Newest first: night k is run "r<k>" (r1 is last night)."""
    return [Night(f"r{k}", 1000.0 - k, commit, outcome) for k, (outcome, commit) in enumerate(outcomes, 1)]


@pytest.mark.parametrize(
    ("tonight", "commit", "earlier", "expected"),
    [
        (P, "c9", [], CellState(State.PASSING)),
        (P, "c9", nights((P, "c8")), CellState(State.PASSING)),
        (F, "c9", [], CellState(State.NEW_FAILURE)),
        (F, "c9", nights((P, "c8")), CellState(State.NEW_FAILURE)),
        (F, "c9", nights((F, "c8"), (F, "c7"), (P, "c6")), CellState(State.STILL_FAILING, since="r2", nights=3)),
        (F, "c9", nights((N, "c8"), (F, "c7")), CellState(State.STILL_FAILING, since="r2", nights=2)),
        (P, "c9", nights((F, "c8")), CellState(State.FIXED)),
        (P, "c9", nights((X, "c8"), (F, "c7")), CellState(State.FIXED)),
        (F, "c9", nights((P, "c9")), CellState(State.FLAKY)),
        (P, "c9", nights((F, "c9"), (P, "c8")), CellState(State.FLAKY)),
        (F, "", nights((P, "")), CellState(State.NEW_FAILURE)),
        (X, "c9", nights((P, "c8")), CellState(State.INFRA)),
        (N, "c9", nights((F, "c8")), CellState(State.NOT_RUN)),
    ],
    ids=[
        "first-night-passes",
        "passes-again",
        "first-night-fails",
        "fails-after-a-pass",
        "fails-for-three-nights",
        "a-night-not-run-does-not-break-the-streak",
        "fixed",
        "infra-is-no-pass-nor-failure",
        "failed-where-the-same-commit-passed",
        "passed-where-the-same-commit-failed",
        "unknown-commits-never-flaky",
        "infra",
        "not-run",
    ],
)
def test_state_of_a_cell(tonight, commit, earlier, expected):
    assert state_of(tonight, commit, earlier) == expected


def test_a_stage_that_passed_on_a_re_run_tonight_is_flaky_never_a_pass():
    assert state_of(P, "c9", nights((P, "c8")), retried_to_pass=True) == CellState(State.FLAKY)


def test_still_failing_says_since_when_and_how_long():
    assert CellState(State.STILL_FAILING, since="r4", nights=4).text() == "still failing: 4 nights, since r4"
    assert CellState(State.NEW_FAILURE).text() == "new failure"


@pytest.mark.parametrize(
    ("status", "outcome"),
    [(Status.PASSED, P), (Status.FAILED, F), (Status.TIMEOUT, F), (Status.INFRA, X), (Status.BLOCKED, N)],
)
def test_a_records_status_is_its_cells_outcome(status, outcome):
    """A stage the machine ended (infra) is neither the model's pass nor its failure."""
    assert outcome_of(status) == outcome
