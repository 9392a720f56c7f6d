"""TIPC config text → typed ``TipcConfig`` (see ``parser`` for the reading rules)."""

from tipc.errors import ConfigError
from tipc.config.model import Field, TipcConfig
from tipc.config.parser import load_config, parse_config_text

__all__ = ["ConfigError", "Field", "TipcConfig", "load_config", "parse_config_text"]
