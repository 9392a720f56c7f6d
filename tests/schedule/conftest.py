"""A throw-away copy of the fake target for the schedule tests that run stages."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .plans import FAKE_TARGET


@pytest.fixture
def fake_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "fake_target"
    shutil.copytree(FAKE_TARGET, repo, ignore=shutil.ignore_patterns("test_tipc", "__pycache__"))
    return repo


@pytest.fixture
def pytester_repo(pytester: pytest.Pytester) -> Path:
    """The fake target inside pytester's directory, for ``pytest tipc`` runs there."""
    pytester.makeini("[pytest]\n")
    repo = pytester.path / "fake_target"
    shutil.copytree(FAKE_TARGET, repo, ignore=shutil.ignore_patterns("test_tipc", "__pycache__"))
    return repo
