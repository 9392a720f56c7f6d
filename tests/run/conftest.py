"""The plan of the fake target's CPU config, on the throw-away copy ``fake_repo``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.fake_target import CPU_CONFIG
from tipc.dialects.paddleocr.config import load_config
from tipc.dialects.paddleocr.plan import build_plan
from tipc.plan import PlanOptions


@pytest.fixture
def fake_plan(fake_repo: Path):
    config = load_config(str(fake_repo / CPU_CONFIG))
    return build_plan(config, PlanOptions(mode="lite_train_lite_infer", repo=str(fake_repo), python=sys.executable))
