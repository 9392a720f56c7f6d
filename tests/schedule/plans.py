"""Plans of fake-target variants (``tests/fake_target/variants.py``, shared with benchmarks/schedule.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from tipc.dialects.paddleocr.config import parse_config_text
from tipc.dialects.paddleocr.plan import build_plan
from tipc.plan import Plan, PlanOptions

FAKE_TARGET = Path(__file__).resolve().parents[1] / "fake_target"
sys.path.insert(0, str(FAKE_TARGET))  # the fake target's helpers are scripts' modules, not a package

from variants import CONFIG_DIR, gpu_matrix, variant  # noqa: E402

MODE = "lite_train_lite_infer"
__all__ = ["CONFIG_DIR", "FAKE_TARGET", "MODE", "gpu_matrix", "plan_of", "variant"]


def plan_of(text: str, device: str = "gpu", mode: str = MODE, **options: object) -> Plan:
    config = parse_config_text(text, f"{CONFIG_DIR}/m.txt")
    return build_plan(config, PlanOptions(mode, python="py", device=device, **options))  # type: ignore[arg-type]
