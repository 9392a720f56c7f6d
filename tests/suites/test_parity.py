"""Plan parity with each suite's own bash: every train config of ``shared/suites/<Suite>/test_tipc/configs`` in every
mode, the suite's ``test_train_inference_python.sh`` run with a recording interpreter (``tests/support/suite_bash``)
beside tipc's plan (``tests/support/suite_parity``).

A cell (config × mode) agrees when both run the same argv lists from the same folders, a documented fix aside
(docs/suites.md), or when neither runs anything. Every other cell must be a named refusal: tipc's plan error says
why it does not plan what the bash runs. At least 99 % of each suite's cells agree (``-s`` prints the figures).

The snapshots live beside the repository (CI: ``../shared/suites``; ``TIPC_SUITES`` names another folder); without
them the tests skip. The first session records every suite (minutes: docs/suites.md); later sessions read the
recordings back from the system's temporary folder while the snapshot is unchanged.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.support.suite_bash import record_suite, suites_root
from tests.support.suite_parity import Cell, compare
from tipc.config.modes import Mode
from tipc.dialects.paddleclas import PADDLECLAS
from tipc.dialects.paddledetection import PADDLEDETECTION
from tipc.dialects.paddlegan import PADDLEGAN
from tipc.dialects.paddlerec import PADDLEREC
from tipc.dialects.paddleseg import PADDLESEG
from tipc.suites.dialect import CONFIG_DIR, Dialect

REPO = Path(__file__).resolve().parents[2]
ROOT = suites_root(REPO)
# benchmark_train is benchmark_train.sh's (its parity: tests/plan/test_benchmark_bash.py for PaddleOCR).
MODES = tuple(
    m for m in Mode if m not in (Mode.BENCHMARK_TRAIN, Mode.PADDLE2ONNX_INFER)
)  # paddle2onnx: its own configs
TARGET = 0.99
# What tipc refuses to plan although the bash runs something, each with its reason (docs/suites.md).
NAMED_REFUSALS = (
    "lies outside the checkout",  # PaddleClas kl_quant with infer_model ../inference/
)
pytestmark = [
    pytest.mark.skipif(ROOT is None, reason="no shared/suites snapshots beside the repository (TIPC_SUITES unset)"),
    pytest.mark.skipif(shutil.which("bash") is None, reason="no bash to run the suites' scripts with"),
]


def cells(dialect: Dialect) -> list[Cell]:
    assert ROOT is not None
    suite = ROOT / dialect.name
    configs = dialect.configs(suite / CONFIG_DIR)
    assert configs, f"no train config in {suite / CONFIG_DIR}"
    recorded = record_suite(suite, configs, MODES)
    return [compare(dialect, config, mode, recorded[(str(config), mode)]) for config in configs for mode in MODES]


@pytest.mark.parametrize(
    "dialect",
    [PADDLECLAS, PADDLEDETECTION, PADDLESEG, PADDLEREC, PADDLEGAN],
    ids=lambda d: d.name,
)
def test_the_plans_run_what_the_suites_bash_runs(dialect: Dialect) -> None:
    found = cells(dialect)
    agreeing = [c for c in found if c.matches]
    kinds = Counter(c.verdict.split(":", 1)[0] for c in found)
    configs = len({c.config for c in found})
    share = len(agreeing) / len(found)
    print(f"\n{dialect.name}: {configs} configs x {len(MODES)} modes = {len(found)} cells; {len(agreeing)} agree "
          f"({share:.1%}): {dict(kinds)}")  # fmt: skip
    others = [c for c in found if not c.matches]
    for cell in others:
        print(f"  {Path(cell.config).relative_to(ROOT)} {cell.mode}: {cell.verdict[:300]}")
    unnamed = [c for c in others if not any(reason in c.verdict for reason in NAMED_REFUSALS)]
    assert not unnamed, "\n".join(f"{c.config} {c.mode}: {c.verdict}" for c in unnamed[:5])
    assert share >= TARGET
