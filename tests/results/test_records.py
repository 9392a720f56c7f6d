"""What the statuses of a run's records make of its verdict and its exit status."""

from __future__ import annotations

import pytest

from tipc.results.outcome import Outcome, outcome_of
from tipc.results.records import run_verdict


@pytest.mark.parametrize(
    ("statuses", "verdict", "fails"),
    [
        (["passed", "passed"], "passed", False),
        (["passed", "skipped", "no_golden", "differs"], "passed", False),
        (["passed", "failed", "blocked"], "failed", True),
        (["passed", "timeout"], "failed", True),
        (["hung"], "failed", True),
        (["passed", "blocked"], "incomplete", True),  # a selected stage did not run, no failure upstream
        ([], "empty", False),
    ],
    ids=["passed", "not-run-on-purpose", "failed-and-blocked", "timeout", "hung", "blocked-alone", "empty"],
)
def test_verdict_and_exit_status(statuses, verdict, fails):
    assert (run_verdict(statuses), outcome_of(statuses).exit_status != 0) == (verdict, fails)


@pytest.mark.parametrize(
    ("statuses", "given", "outcome", "status"),
    [
        (["passed"], {"regressions": 2, "fail_on_regression": True}, Outcome.REGRESSED, 1),
        (["passed"], {"regressions": 2}, Outcome.PASSED, 0),  # reported, not failing without --fail-on regression
        (["failed"], {"regressions": 2, "fail_on_regression": True}, Outcome.FAILED, 1),  # the failure comes first
        (["passed"], {"stopped": True}, Outcome.FAILED, 1),
        ([], {"dry_run": True}, Outcome.DRY_RUN, 5),
        (["failed"], {"interrupted": True}, Outcome.INTERRUPTED, 130),
        ([], {}, Outcome.EMPTY, 0),
    ],
    ids=["regressed", "regression-reported", "failed-first", "stopped", "dry-run", "interrupted", "empty"],
)
def test_one_table_from_outcome_to_exit_status(statuses, given, outcome, status):
    assert (outcome_of(statuses, **given), outcome_of(statuses, **given).exit_status) == (outcome, status)
