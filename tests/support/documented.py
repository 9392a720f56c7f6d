"""What docs/architecture.md promises, read from it, so that a test holds the code to the document."""

from __future__ import annotations

import re
from pathlib import Path

ARCHITECTURE = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def metric_keys(row: str) -> set[str]:
    """The backticked keys of a row of the ``StageRecord.metrics`` table, e.g. ``"infer"``."""
    for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines():
        if line.startswith(f"| {row}"):
            return set(re.findall(r"`(\w+)`", line.split("|")[2]))
    raise LookupError(f"{ARCHITECTURE}: no metrics row for {row!r}")
