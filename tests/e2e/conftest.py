"""A prepared copy of the reference target, shared by the end-to-end tests.

A copy, not examples/tinyrec itself: a run must never race someone else's
``tipc prepare`` or outputs in the checkout.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[2]
LITE = "lite_train_lite_infer"
CPU_CONFIG = "tinyrec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"


@pytest.fixture(scope="session")
def tinyrec(tmp_path_factory) -> Path:
    """examples/tinyrec without its data and outputs, then ``tipc prepare``d for the lite mode."""
    repo = tmp_path_factory.mktemp("target") / "tinyrec"
    shutil.copytree(
        CHECKOUT / "examples" / "tinyrec",
        repo,
        ignore=shutil.ignore_patterns("train_data", "inference", "output", "test_tipc", "log", "__pycache__"),
    )
    done = subprocess.run(
        [sys.executable, "-m", "tipc", "prepare", "--config", CPU_CONFIG, "--mode", LITE, "--repo", str(repo)],
        cwd=CHECKOUT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return repo
