"""Which interpreter runs the stages, and a note saying why (§8 B18: the config hard-codes one)."""

from __future__ import annotations

import shutil
import sys
from typing import Callable

from tipc.config.model import Field


def resolve_python(
    config_python: Field,
    override: str | None,
    which: Callable[[str], str | None] = shutil.which,
    fallback: str = sys.executable,
) -> tuple[str, str]:
    """Return (interpreter, note): the override wins, then the config's value if on PATH, else ``fallback``."""
    if override:
        return override, f"python: {override} (from --python)"
    where = f"line {config_python.line}"
    if config_python.is_null:
        return fallback, f"python: {fallback} (the config's python ({where}) is empty)"
    if which(config_python.value):
        return config_python.value, f"python: {config_python.value} (from the config, {where}, found on PATH)"
    return fallback, (f"python: {fallback} (the config's {config_python.value!r} ({where}) "
                      f"is not on PATH; using the interpreter running tipc)")
