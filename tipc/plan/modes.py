"""The four modes the python chain accepts (the bash accepted anything, §8 B18)."""

from __future__ import annotations

from tipc.config.errors import ConfigError
from tipc.plan.model import MODES


def validate_mode(mode: str, config_path: str) -> None:
    if mode not in MODES:
        raise ConfigError(str(config_path), 0, f"unknown mode {mode!r}: expected one of {', '.join(MODES)}")
