"""A config read again after its lines were changed in memory (``--set``, a device script's rewrites).

The change works on the config's lines as the reader saw them (their physical numbers beside them); the config is
then read from the changed text, so every check of the reader holds for it. The suite's files are never touched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tipc.config.bounds import config_text
from tipc.errors import ConfigError
from tipc.suites.bash import BashLines
from tipc.suites.plans import SuiteConfig, suite_config

# (config path, its lines, their physical numbers) -> notes; changes the lines in place
Change = Callable[[str, list[str], list[int]], tuple[str, ...]]
# A dialect's reader of config text: (text, path) -> its config (``Dialect.parse``)
Parse = Callable[[str, str], Any]


def reread(
    config: Any, dialect: str, change: Change, what: str, parse: Parse | None = None
) -> tuple[Any, tuple[str, ...]]:
    """``config`` read again with ``change`` applied, and the change's notes: a ``SuiteConfig`` from its lines, any
    other from its file's text through the dialect's ``parse``."""
    if isinstance(config, SuiteConfig):
        texts, numbers = list(config.lines.texts), list(config.lines.numbers)
        notes = change(config.path, texts, numbers)
        lines = BashLines(config.path, tuple(texts), tuple(numbers))
        return suite_config(config.dialect, config.path, lines, config.reading, config.notes), notes
    if parse is not None:
        physical = config_text(config.path).removeprefix("\ufeff").split("\n")
        notes = change(config.path, physical, list(range(1, len(physical) + 1)))
        return parse("\n".join(physical), config.path), notes
    path = str(getattr(config, "path", dialect))
    raise ConfigError(path, 0, f"{what}: {dialect}'s configs are read by a plugin's reader, which takes no {what}")
