"""How much of a suite the generic dialect gets right without a dialect of its own: every train config of a suite it
was not written from, in every mode, planned by the generic dialect beside that suite's own bash (the recordings
``test_parity`` makes), as the parity tests compare them.

Two figures per suite (``-s`` prints them; docs/suites.md, 'Suites without a dialect', gives them): the cells
(config × mode) whose commands all agree, and the share of the bash's commands the plan runs exactly. Each suite's
own script departs from the common one somewhere (its overrides, file names, folders), which is what its dialect
is for; the floors keep the generic dialect from losing what it gets right.
"""

from __future__ import annotations

import shutil
from collections import Counter

import pytest

from tests.suites.test_parity import MODES, ROOT
from tests.support.suite_bash import record_suite
from tests.support.suite_parity import as_planned, compare, planned
from tipc.suites import generic, registry
from tipc.suites.dialect import CONFIG_DIR

# (cells that agree, commands that agree): measured, a little below, so that a change that loses some fails.
FLOORS = {
    "PaddleVideo": (0.19, 0.03),
    "PaddleRec": (0.47, 0.15),
    "PaddleGAN": (0.01, 0.24),
    "PaddleSeg": (0.0, 0.12),
}
pytestmark = [
    pytest.mark.skipif(ROOT is None, reason="no shared/suites snapshots beside the repository (TIPC_SUITES unset)"),
    pytest.mark.skipif(shutil.which("bash") is None, reason="no bash to run the suites' scripts with"),
]


@pytest.mark.parametrize("suite", sorted(FLOORS))
def test_the_generic_dialect_plans_what_a_suites_own_bash_runs(suite: str) -> None:
    assert ROOT is not None
    own = next(d for d in registry.dialects() if d.name == suite)  # its file names; the recordings are of these
    configs = own.configs(ROOT / suite / CONFIG_DIR)
    recorded = record_suite(ROOT / suite, configs, MODES)
    cells = same = total = 0
    for config in configs:
        for mode in MODES:
            ran = recorded[(str(config), mode)]
            cells += compare(generic.DIALECT, config, mode, ran).matches
            ours = planned(generic.DIALECT, config, mode)
            mine = Counter() if isinstance(ours, str) else Counter((r.argv, r.cwd) for r in ours)
            theirs = Counter(as_planned(ran))
            same, total = same + sum((theirs & mine).values()), total + sum(theirs.values())
    share = (cells / (len(configs) * len(MODES)), same / total)
    print(f"\n{suite}: {cells} of {len(configs) * len(MODES)} cells agree ({share[0]:.1%}), {same} of {total} "
          f"commands ({share[1]:.1%})")  # fmt: skip
    assert all(got >= floor for got, floor in zip(share, FLOORS[suite], strict=True))
