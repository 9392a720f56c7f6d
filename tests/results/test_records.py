"""What the statuses of a run's records make of its verdict and its exit status."""

from __future__ import annotations

import pytest

from tipc.results.records import run_fails, run_verdict


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
    assert (run_verdict(statuses), run_fails(statuses)) == (verdict, fails)
