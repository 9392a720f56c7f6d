"""TIPC config text → typed ``TipcConfig`` (see ``parser`` for the reading rules)."""

from tipc.config.model import Field, TipcConfig
from tipc.config.parser import load_config, parse_config_text
from tipc.errors import ConfigError

__all__ = ["ConfigError", "Field", "TipcConfig", "load_config", "parse_config_text"]
