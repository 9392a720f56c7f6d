"""Which interpreter runs the stages, and a note saying why (the config hard-codes one, often
``python3.7``, which may be missing or a shim that cannot run)."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable

from tipc.config.model import Field

# name -> "" when it can run the stages, else why not ("is not on PATH", "cannot run: …").
PythonCheck = Callable[[str], str]


def on_path(name: str) -> str:
    """The check a pure plan can make: is the name on PATH (``tipc.run.probe`` runs it too)."""
    return "" if shutil.which(name) else "is not on PATH"


def resolve_python(
    config_python: Field,
    override: str | None,
    check: PythonCheck = on_path,
    fallback: str = sys.executable,
) -> tuple[str, str]:
    """Return (interpreter, note): the override wins, then the config's value if it passes
    ``check``, else ``fallback``, the interpreter running tipc."""
    if override:
        return override, f"python: {override} (from --python)"
    where = f"line {config_python.line}"
    if config_python.is_null:
        return fallback, f"python: {fallback} (the config's python ({where}) is empty)"
    problem = check(config_python.value)
    if not problem:
        return config_python.value, f"python: {config_python.value} (from the config, {where}, found on PATH)"
    return fallback, (
        f"python: {fallback} (the config's {config_python.value!r} ({where}) "
        f"{problem}; using the interpreter running tipc; --python PY chooses another)"
    )
