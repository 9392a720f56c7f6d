"""Plan parity with PaddleVideo's and PaddleSpeech's own bash, as ``test_parity`` checks the older suites: every
train config in every mode, the suite's ``test_train_inference_python.sh`` run with the recording interpreter
(cached, ``tests/support/suite_bash``) beside the dialect's plan.

PaddleSpeech keeps its TIPC under ``tests/test_tipc/``: its snapshot's ``tests/`` folder is the checkout. A cell
the dialect refuses must be a mode it does not offer, for a reason docs/suites.md gives; the share that agrees
is counted over the modes the suite offers (``-s`` prints both figures).
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.suites.test_parity import MODES, ROOT, TARGET
from tests.support.suite_bash import record_suite
from tests.support.suite_parity import Cell, compare
from tipc.dialects import paddlespeech, paddlevideo
from tipc.suites.dialect import CONFIG_DIR, Dialect

CHECKOUTS = {"PaddleVideo": ".", "PaddleSpeech": "tests"}  # the checkout inside each snapshot
# Modes a dialect does not offer though its bash runs something there (docs/suites.md says why).
UNOFFERED = {"PaddleSpeech": ("klquant_whole_infer",)}
pytestmark = [
    pytest.mark.skipif(ROOT is None, reason="no shared/suites snapshots beside the repository (TIPC_SUITES unset)"),
    pytest.mark.skipif(shutil.which("bash") is None, reason="no bash to run the suites' scripts with"),
]


def cells(dialect: Dialect) -> list[Cell]:
    assert ROOT is not None
    checkout = ROOT / dialect.name / CHECKOUTS[dialect.name]
    configs = dialect.configs(checkout / CONFIG_DIR)
    assert configs, f"no train config in {checkout / CONFIG_DIR}"
    recorded = record_suite(checkout, configs, MODES)
    return [compare(dialect, config, mode, recorded[(str(config), mode)]) for config in configs for mode in MODES]


@pytest.mark.parametrize("dialect", [paddlevideo.DIALECT, paddlespeech.DIALECT], ids=lambda d: d.name)
def test_the_plans_run_what_the_suites_bash_runs(dialect: Dialect) -> None:
    found = cells(dialect)
    unoffered = UNOFFERED.get(dialect.name, ())
    offered = [c for c in found if c.mode not in unoffered]
    agreeing = [c for c in offered if c.matches]
    share = len(agreeing) / len(offered)
    kinds = Counter(c.verdict.split(":", 1)[0] for c in found)
    configs = len({c.config for c in found})
    print(f"\n{dialect.name}: {configs} configs x {len(MODES)} modes = {len(found)} cells; {len(agreeing)} of the "
          f"{len(offered)} in offered modes agree ({share:.1%}): {dict(kinds)}")  # fmt: skip
    for cell in (c for c in found if not c.matches):
        print(f"  {Path(cell.config).relative_to(ROOT)} {cell.mode}: {cell.verdict[:300]}")
    others = [c for c in found if not c.matches and not (c.mode in unoffered and c.verdict.startswith("refused: mode"))]
    assert not others, "\n".join(f"{c.config} {c.mode}: {c.verdict}" for c in others[:5])
    assert share >= TARGET
