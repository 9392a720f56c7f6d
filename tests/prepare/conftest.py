"""Fixtures for the prepare tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from .fake_checkout import make_checkout


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """The root of a fake PaddleOCR checkout (config at ``CONFIG_REL``)."""
    make_checkout(tmp_path)
    return tmp_path
