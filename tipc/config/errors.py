"""The one error type for bad input: every message names the file and the line."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ConfigError(Exception):
    """Bad config input, rendered as ``path:line: message`` (line 0 = the file as a whole)."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        if self.line:
            return f"{self.path}:{self.line}: {self.message}"
        return f"{self.path}: {self.message}"
