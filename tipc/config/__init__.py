"""TIPC config text → typed ``TipcConfig`` (see ``parser`` for the reading rules), ``PtqConfig`` for
the KL quantization format (``ptq``) or ``Paddle2OnnxConfig`` for the paddle2onnx format
(``paddle2onnx``); ``load_any_config`` reads any of them (``formats``).

The names below load on first use: pytest imports ``tipc.config.modes`` on every start (the
``--mode`` choices), which should not cost it the parser.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tipc.config.formats import AnyConfig, load_any_config, parse_any_config_text
    from tipc.config.model import Field, TipcConfig
    from tipc.config.paddle2onnx import Paddle2OnnxConfig
    from tipc.config.parser import load_config, parse_config_text
    from tipc.config.ptq import PtqConfig
    from tipc.errors import ConfigError

_HOMES = {
    "AnyConfig": "tipc.config.formats",
    "load_any_config": "tipc.config.formats",
    "parse_any_config_text": "tipc.config.formats",
    "Field": "tipc.config.model",
    "TipcConfig": "tipc.config.model",
    "Paddle2OnnxConfig": "tipc.config.paddle2onnx",
    "load_config": "tipc.config.parser",
    "parse_config_text": "tipc.config.parser",
    "PtqConfig": "tipc.config.ptq",
    "ConfigError": "tipc.errors",
}

__all__ = [
    "AnyConfig",
    "ConfigError",
    "Field",
    "Paddle2OnnxConfig",
    "PtqConfig",
    "TipcConfig",
    "load_any_config",
    "load_config",
    "parse_any_config_text",
    "parse_config_text",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'tipc.config' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)
