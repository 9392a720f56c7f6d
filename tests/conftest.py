"""Fixtures that more than one test folder uses (helpers live in ``tests/support``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fake_checkout import make_checkout
from tests.support.fake_target import copy_fake_target

pytest_plugins = ["pytester"]


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """The root of a fake PaddleOCR checkout (config at ``CONFIG_REL``)."""
    make_checkout(tmp_path)
    return tmp_path


@pytest.fixture
def fake_repo(tmp_path: Path) -> Path:
    """A throw-away copy of the fake target."""
    return copy_fake_target(tmp_path / "fake_target")
