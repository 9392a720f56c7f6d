"""The reference target as the slow end-to-end tests drive it: ``pytest tipc`` in a process of its own."""

from __future__ import annotations

import sys
from pathlib import Path

import tipc

LITE = "lite_train_lite_infer"
CPU_CONFIG = "tinyrec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"


def pytest_tipc_argv(here: Path, *options: str) -> list[str]:
    """``python -m pytest tipc`` with ``here/pytest.ini`` as its ini file (rootdir, reports and caches
    stay in ``here``), no cache provider, the running interpreter for the stages, and ``options``."""
    package = str(Path(tipc.__file__).parent)
    return [sys.executable, "-m", "pytest", package, "-c", str(here / "pytest.ini"), "-p", "no:cacheprovider",
            "--tipc-python", sys.executable, *options]  # fmt: skip
