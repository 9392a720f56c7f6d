"""tipc's version, written once: in ``pyproject.toml``, read back from the installed metadata."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    VERSION = version("tipc")
except PackageNotFoundError:  # a checkout on sys.path without ``pip install``
    VERSION = "0+unknown"
