"""PaddleOCR's config formats: the train format (``parser``), KL quantization (``ptq``) and paddle2onnx
(``paddle2onnx``), told apart by their text (``formats.load_any_config``).

The names below load on first use, as ``tipc.config``'s do.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tipc.dialects.paddleocr.config.formats import AnyConfig as AnyConfig
    from tipc.dialects.paddleocr.config.formats import load_any_config as load_any_config
    from tipc.dialects.paddleocr.config.formats import parse_any_config_text as parse_any_config_text
    from tipc.dialects.paddleocr.config.paddle2onnx import Paddle2OnnxConfig as Paddle2OnnxConfig
    from tipc.dialects.paddleocr.config.parser import load_config as load_config
    from tipc.dialects.paddleocr.config.parser import parse_config_text as parse_config_text
    from tipc.dialects.paddleocr.config.ptq import PtqConfig as PtqConfig

_FORMATS = "tipc.dialects.paddleocr.config.formats"
_PARSER = "tipc.dialects.paddleocr.config.parser"
_HOMES = {
    "AnyConfig": _FORMATS,
    "load_any_config": _FORMATS,
    "parse_any_config_text": _FORMATS,
    "Paddle2OnnxConfig": "tipc.dialects.paddleocr.config.paddle2onnx",
    "load_config": _PARSER,
    "parse_config_text": _PARSER,
    "PtqConfig": "tipc.dialects.paddleocr.config.ptq",
}

__all__ = [
    "AnyConfig",
    "Paddle2OnnxConfig",
    "PtqConfig",
    "load_any_config",
    "load_config",
    "parse_any_config_text",
    "parse_config_text",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)
