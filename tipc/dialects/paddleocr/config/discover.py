"""The configs under a directory: what ``--config DIR`` stands for."""

from __future__ import annotations

import os
from pathlib import Path

PATTERN = "train_*.txt"  # TIPC's train → infer configs; cpp, serving and paddle2onnx configs are named otherwise


def train_configs(directory: Path) -> tuple[Path, ...]:
    """Every ``train_*.txt`` file below ``directory``, at any depth, sorted by path.

    Hidden directories (``.git``, ``.venv``) are not searched, and neither are symlinked ones
    (``os.walk`` does not follow them), so a link loop cannot make the walk endless.
    """
    found: list[Path] = []
    for parent, subdirs, files in os.walk(directory):
        subdirs[:] = [name for name in subdirs if not name.startswith(".")]
        found.extend(Path(parent) / name for name in files if Path(name).match(PATTERN))
    return tuple(sorted(found))
