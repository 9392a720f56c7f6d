"""TIPC config text → typed ``TipcConfig`` (see ``parser`` for the reading rules), or ``PtqConfig`` for
the KL quantization format (``ptq``); ``load_any_config`` reads either (``formats``)."""

from tipc.config.formats import AnyConfig, load_any_config, parse_any_config_text
from tipc.config.model import Field, TipcConfig
from tipc.config.parser import load_config, parse_config_text
from tipc.config.ptq import PtqConfig
from tipc.errors import ConfigError

__all__ = [
    "AnyConfig",
    "ConfigError",
    "Field",
    "PtqConfig",
    "TipcConfig",
    "load_any_config",
    "load_config",
    "parse_any_config_text",
    "parse_config_text",
]
