from __future__ import annotations

from pathlib import Path

import pytest

from recorded_runs import multi_node_runs, single_node_run


@pytest.fixture
def single_run(tmp_path: Path) -> Path:
    return single_node_run(tmp_path / "results")


@pytest.fixture
def multi_run(tmp_path: Path) -> tuple[Path, Path]:
    return multi_node_runs(tmp_path / "results")
