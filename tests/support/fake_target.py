"""The fake target (``tests/fake_target``): paddle-free scripts that honour PaddleOCR's CLI.

Tests run a copy, never the folder itself: a run writes outputs next to the
scripts, and two tests must not race each other's outputs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

FAKE_TARGET = Path(__file__).resolve().parents[1] / "fake_target"
CPU_CONFIG = "configs/fake_rec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"


def copy_fake_target(dest: Path) -> Path:
    """A clean copy at ``dest`` (no outputs a local run may have left in the source folder)."""
    shutil.copytree(FAKE_TARGET, dest, ignore=shutil.ignore_patterns("test_tipc", "__pycache__"))
    return dest
