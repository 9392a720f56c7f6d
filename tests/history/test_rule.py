"""The night's regression rule, and the night a regression began."""

from __future__ import annotations

import pytest

from tipc.history.rule import NIGHTS_SHOWN, regressed, regressed_since
from tipc.metrics.noise import TrendPolicy

RULE = TrendPolicy(runs=30, k=3.0, min_runs=3)
STEADY = [(f"n{i}", v) for i, v in enumerate((10.0, 10.1, 9.9, 10.0, 10.05, 9.95, 10.02, 9.98, 10.1, 9.9), 1)]
SLOW = [("n11", 20.0), ("n12", 20.2), ("n13", 19.9)]


@pytest.mark.parametrize(
    ("nights", "higher_is_better", "since"),
    [
        (STEADY, False, ""),
        ([*STEADY, *SLOW], False, "n11"),  # dated to its first night, not tonight's
        ([*STEADY, *SLOW[:2]], False, ""),  # two nights may be spikes: not yet a shift
        ([*STEADY, *SLOW, ("n14", 10.0)], False, ""),  # back at its level: no regression tonight
        ([*STEADY, *SLOW], True, ""),  # higher is better: an improvement
        ([("n1", 10.0), *SLOW], False, ""),  # too few nights to judge: learning
        ([*STEADY, ("n11", None), *[(f"n{12 + i}", v) for i, (_, v) in enumerate(SLOW)]], False, "n12"),
    ],
    ids=["steady", "shifted", "two-nights", "recovered", "improved", "learning", "night-without-value"],
)
def test_the_night_a_regression_began(nights, higher_is_better, since):
    assert regressed_since(nights, higher_is_better, "ms", RULE) == since


def test_regressed_is_the_rules_verdict_over_the_nights_a_shift_needs():
    earlier = [v for _, v in STEADY]
    slow = [v for _, v in SLOW][:NIGHTS_SHOWN]
    assert regressed([*earlier, *slow[:-1]], slow[-1], False, "ms", RULE)
    assert not regressed([*earlier, *slow[:-1]], 10.0, False, "ms", RULE)
    assert not regressed(earlier, 10.4, False, "ms", RULE)  # inside the time figures' minimum effect
