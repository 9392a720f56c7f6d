"""The night's regression rule, and the night a regression began."""

from __future__ import annotations

import pytest

from tipc.metrics.noise import TrendPolicy
from tipc.metrics.rule import regressed, regressed_since

RULE = TrendPolicy(runs=30, k=3.0, min_runs=3)
STEADY = [("n1", 10.0), ("n2", 10.1), ("n3", 9.9), ("n4", 10.0)]


@pytest.mark.parametrize(
    ("nights", "higher_is_better", "since"),
    [
        (STEADY, False, ""),
        ([*STEADY, ("n5", 20.0)], False, "n5"),
        ([*STEADY, ("n5", 20.0), ("n6", 20.0)], False, "n5"),  # still outside the band of the nights before
        ([*STEADY, ("n5", 20.0), ("n6", 10.0)], False, ""),  # back in its band: no regression tonight
        ([*STEADY, ("n5", 20.0)], True, ""),  # higher is better: an improvement
        ([("n1", 10.0), ("n2", 20.0)], False, ""),  # too few nights to judge: learning
        ([*STEADY, ("n5", None), ("n6", 20.0)], False, "n6"),  # a night without a value judges nothing
    ],
    ids=["steady", "tonight", "two-nights", "recovered", "improved", "learning", "night-without-value"],
)
def test_the_night_a_regression_began(nights, higher_is_better, since):
    assert regressed_since(nights, higher_is_better, RULE) == since


def test_regressed_is_the_rules_verdict():
    assert regressed([10.0, 10.1, 9.9], 20.0, False, RULE)
    assert not regressed([10.0, 10.1, 9.9], 10.0, False, RULE)
