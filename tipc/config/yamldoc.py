"""A YAML file read once, that can say on which line each key was written.

PaddleOCR ymls use anchors (``&max_text_length``), so values come from
PyYAML's safe constructor while lines come from the composed node tree.
A key a stage's ``-o`` override set is blamed on the config line that wrote
the override, not on the yml (``origins``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tipc.config.bounds import read_bounded
from tipc.errors import ConfigError


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a value that is not the yml's own was written."""

    path: str
    line: int
    what: str  # e.g. "the override 'Train.dataset.data_dir=./x' of stage norm_train-gpus_0-fp32::train"


@dataclass(frozen=True, slots=True)
class YamlDoc:
    path: Path
    data: Any
    root: yaml.Node | None
    origins: Mapping[tuple[str, ...], Origin] = field(default_factory=dict)

    def get(self, *keys: str, default: Any = None) -> Any:
        """The value at the key path, or ``default`` when any step is absent."""
        node: Any = self.data
        for key in keys:
            if not isinstance(node, dict) or key not in node:
                return default
            node = node[key]
        return node

    def line(self, *keys: str) -> int:
        """1-based line of the deepest key of the path that exists (0: none)."""
        node, found = self.root, 0
        for key in keys:
            if not isinstance(node, yaml.MappingNode):
                break
            for key_node, value_node in node.value:
                if key_node.value == key:
                    node, found = value_node, key_node.start_mark.line + 1
                    break
            else:
                break
        return found

    def origin(self, *keys: str) -> Origin | None:
        """The origin of the value at the key path when an override set it or a mapping above it."""
        for end in range(len(keys), 0, -1):
            found = self.origins.get(keys[:end])
            if found is not None:
                return found
        return None

    def where(self, *keys: str) -> tuple[str, int]:
        """(file, line) to blame for the value at the key path: the override's, else the yml's."""
        origin = self.origin(*keys)
        return (origin.path, origin.line) if origin is not None else (str(self.path), self.line(*keys))

    def error(self, message: str, *keys: str) -> ConfigError:
        origin = self.origin(*keys)
        if origin is not None:
            message = f"{message} (from {origin.what}, over {self.path})"
        return ConfigError(*self.where(*keys), message)


def read_yaml(path: Path) -> YamlDoc:
    # Bounded like a config: a yml named by a config may be a FIFO or /dev/zero as well.
    text = read_bounded(path, expected="a YAML training config").decode("utf-8", errors="replace")
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(str(path), line, f"not valid YAML: {problem}") from None
    finally:
        loader.dispose()
    return YamlDoc(Path(path), data, root)
