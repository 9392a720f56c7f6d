"""The browser the report's pages are checked in."""

from __future__ import annotations

import shutil

import pytest


@pytest.fixture(scope="session")
def chromium() -> str:
    binary = shutil.which("chromium")
    if not binary:
        pytest.skip(
            "no `chromium` on PATH: `make test` installs Debian's chromium package when run as root "
            "with apt-get; otherwise install it (apt-get install -y chromium) to run this test"
        )
    return binary
