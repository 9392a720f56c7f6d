"""``|`` lists whose items name directories or stages, so a repeated item would overwrite its twin."""

from __future__ import annotations

from collections.abc import Callable

from tipc.config.bounds import excerpt
from tipc.config.model import Field
from tipc.errors import ConfigError


def distinct_values(field: Field, path: str, same: Callable[[str], str] = str) -> tuple[str, ...]:
    """``field.values()``, or a ConfigError naming the repeated item (compared through ``same``)."""
    values = field.values()
    seen: dict[str, str] = {}
    for value in values:
        twin = seen.get(same(value))
        if twin is not None:
            found = f"{excerpt(value)!r} repeats {excerpt(twin)!r}"
            raise ConfigError(
                path,
                field.line,
                f"{excerpt(field.key)}: {found}; expected distinct values (each one names its own runs and logs)",
            )
        seen[same(value)] = value
    return values
