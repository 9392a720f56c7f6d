"""``-o Key.path=value`` words laid over a training yml, as PaddleOCR's ``merge_config`` lays them.

Values are YAML, as the tools read them (``[a.txt, b.txt]`` is a list, ``null`` is None).
A dotted key sets one value inside nested mappings; a plain key whose value is a mapping
updates that section, else replaces it. A mapping missing on the way is created: the tools
would stop there, and no data made here could change that.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from tipc.config.bounds import excerpt
from tipc.config.yamldoc import NOT_YAML, Origin, YamlDoc, load_yaml
from tipc.errors import ConfigError


@dataclass(frozen=True, slots=True)
class Override:
    keys: tuple[str, ...]  # "Train.dataset.data_dir" -> ("Train", "dataset", "data_dir")
    value: Any
    origin: Origin


def parse_override(word: str, origin: Origin) -> Override:
    """``word`` is ``key=value`` (the caller checked the ``=``)."""
    key, _, text = word.partition("=")
    try:
        value = load_yaml(text, origin.path, origin.line)[1]
    except ConfigError as exc:
        problem = exc.message.removeprefix(NOT_YAML)
        raise ConfigError(
            origin.path,
            origin.line,
            f"{origin.what}: value {excerpt(text)!r} is not YAML ({problem}); expected a YAML value, "
            "as PaddleOCR's tools read -o values",
        ) from None
    return Override(tuple(key.split(".")), value, origin)


def with_overrides(doc: YamlDoc, overrides: Sequence[Override]) -> YamlDoc:
    """``doc`` as the tool sees it after ``overrides`` (in order); the yml file is not touched."""
    if not overrides or not isinstance(doc.data, dict):
        return doc  # a yml that is no mapping is reported by its reader, overrides or not
    data = copy.deepcopy(doc.data)
    origins = dict(doc.origins)
    for override in overrides:
        for keys in _merge(data, override, doc):
            # A value set again, or a mapping replaced, hides what earlier overrides set inside it.
            for stale in [k for k in origins if k[: len(keys)] == keys]:
                del origins[stale]
            origins[keys] = override.origin
    return replace(doc, data=data, origins=origins)


def _merge(data: dict[str, Any], override: Override, doc: YamlDoc) -> list[tuple[str, ...]]:
    """Apply one override to ``data``; return the key paths it set."""
    keys, value = override.keys, override.value
    if len(keys) == 1:
        (key,) = keys
        section = data.get(key)
        if isinstance(value, dict) and isinstance(section, dict):
            section.update(value)
            return [(key, str(sub)) for sub in value]
        data[key] = value
        return [keys]
    node = data
    for depth, key in enumerate(keys[:-1], start=1):
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            origin = override.origin
            raise ConfigError(
                origin.path,
                origin.line,
                f"{origin.what}: {'.'.join(keys[:depth])} in {doc.path} is {node!r}; "
                f"expected a mapping to set {'.'.join(keys[depth:])} in",
            )
    node[keys[-1]] = value
    return [keys]
