"""``--set KEY=VALUE``: a config value changed for one run, without editing the suite's files.

Applied where a config is read (``tipc.suites.front``), so every dialect that reads the shared layout (the suites'
``SuiteConfig``) or PaddleOCR's formats takes it: each line whose key is ``KEY`` (as written, or its last word:
``Global.pretrained_model`` names the line ``-o Global.pretrained_model:null``) reads ``VALUE`` instead, and the
config is read again from the changed text, so every check of the reader applies to the new value. Each change is
a plan note naming the line and the value it replaced; a key no line has is a ``ConfigError`` naming the config and
its nearest keys.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from tipc.config.bounds import check_line, excerpt
from tipc.errors import ConfigError, SettingsError
from tipc.suites.bash import HEADER_PREFIX
from tipc.suites.reread import Parse, reread

Sets = tuple[tuple[str, str], ...]
FLAG = "--set"
NEAR = 5


def parse_sets(values: Iterable[str]) -> Sets:
    """``KEY=VALUE`` words (``--set``, repeatable) as pairs; a later one for the same key wins."""
    found: dict[str, str] = {}
    for word in values:
        key, sep, value = word.partition("=")
        if not sep or not key.strip() or "\n" in word:
            raise SettingsError(f"{FLAG} {word!r}: expected KEY=VALUE, KEY a config line's key (pretrain_weights=null)")
        found[key.strip()] = value
    return tuple(found.items())


def _key(text: str) -> str | None:
    """A line's key ("" for none), or None for a header or a line without a colon."""
    if text.strip().startswith(HEADER_PREFIX) or ":" not in text:
        return None
    return text.split(":", 1)[0].strip()


def _names(key: str) -> tuple[str, ...]:
    words = key.split()
    return (key, words[-1]) if words else (key,)


def _changed(path: str, texts: list[str], numbers: list[int], sets: Sets) -> tuple[str, ...]:
    """Each set applied to ``texts`` in place (``numbers``: their physical lines); the plan notes."""
    keys = [_key(t) for t in texts]
    notes = []
    for wanted, value in sets:
        hits = [i for i, key in enumerate(keys) if key is not None and wanted in _names(key)]
        if not hits:
            known = sorted({name for key in keys if key for name in _names(key)})
            near = difflib.get_close_matches(wanted, known, n=NEAR) or known[:NEAR]
            raise ConfigError(
                path,
                0,
                f"{FLAG} {excerpt(wanted)}: no line of this config has that key: expected one of its keys "
                f"(nearest: {', '.join(near)})",
            )
        for i in hits:
            old = texts[i].split(":", 1)[1]
            texts[i] = f"{keys[i]}:{value}"
            check_line(path, numbers[i], texts[i])
            said = f"the config says '{excerpt(old)}'"
            notes.append(f"{FLAG} {excerpt(wanted)}: line {numbers[i]} reads '{excerpt(value)}' ({said})")
    return tuple(notes)


def apply_sets(config: Any, dialect: str, sets: Sets, parse: Parse | None = None) -> tuple[Any, tuple[str, ...]]:
    """The config read again with the sets applied (through the dialect's ``parse``), and a note per changed line."""
    if not sets:
        return config, ()
    return reread(config, dialect, lambda path, texts, numbers: _changed(path, texts, numbers, sets), FLAG, parse)
