"""A throw-away copy of the fake target and the plan of its CPU config."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tipc.config import load_config
from tipc.plan import PlanOptions, build_plan

FAKE_TARGET = Path(__file__).resolve().parents[1] / "fake_target"
CPU_CONFIG = "configs/fake_rec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"


@pytest.fixture
def fake_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "fake_target"
    shutil.copytree(FAKE_TARGET, repo, ignore=shutil.ignore_patterns("test_tipc", "__pycache__"))
    return repo


@pytest.fixture
def fake_plan(fake_repo: Path):
    config = load_config(str(fake_repo / CPU_CONFIG))
    return build_plan(config, PlanOptions(mode="lite_train_lite_infer", repo=str(fake_repo), python=sys.executable))
