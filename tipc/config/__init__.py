"""TIPC config text: the typed config (``model``), the run modes (``modes``), the bounds every reader applies
(``bounds``), the one YAML loader (``yamldoc``) and the target a config declares (``locate``). Each suite's own
reader lives in its dialect package (``tipc.dialects``).

The names below load on first use: pytest imports ``tipc.config.modes`` on every start (the
``--mode`` choices), which should not cost it the model.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tipc.config.model import Field, TipcConfig
    from tipc.errors import ConfigError

_HOMES = {
    "Field": "tipc.config.model",
    "TipcConfig": "tipc.config.model",
    "ConfigError": "tipc.errors",
}

__all__ = ["ConfigError", "Field", "TipcConfig"]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'tipc.config' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)
