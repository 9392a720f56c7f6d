"""The one YAML loader of tipc (training ymls, golden files, ``target.yaml``, ``-o`` values): a file
read once, that can say on which line each key was written.

PaddleOCR ymls use anchors (``&max_text_length``), so values come from PyYAML's safe constructor
while lines come from the composed node tree. A key a stage's ``-o`` override set is blamed on the
config line that wrote the override, not on the yml (``origins``).

Hostile YAML is refused, each time as a ``ConfigError`` at ``file:line``: nesting deeper than
``MAX_DEPTH`` (PyYAML's composer recurses: deep nesting was a ``RecursionError``), a document that
aliases expand to more than ``MAX_NODES`` nodes (an alias chain of 2 KB stands for billions),
numbers longer than ``MAX_NUMBER_CHARS`` (a 5000-digit integer was a ``ValueError``), and control
characters, raw or escaped (``"\\0"``), in any string. PaddleDetection's ymls tag their mappings with classes
(``!COCODataSet``): ``tagged=True`` reads a local tag's node as the plain data it tags.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor

from tipc.config.bounds import excerpt, read_bounded
from tipc.errors import ConfigError

NOT_YAML = "not valid YAML: "  # how every message of the loader begins
MAX_DEPTH = 64  # real ymls nest 5 deep
MAX_NODES = 100_000  # nodes of the document with every alias expanded; real ymls have hundreds
MAX_NUMBER_CHARS = 64
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


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


def read_yaml(path: Path, expected: str = "a YAML training config", tagged: bool = False) -> YamlDoc:
    # Bounded like a config: a yml named by a config may be a FIFO or /dev/zero as well.
    text = read_bounded(path, expected=expected).decode("utf-8", errors="replace")
    root, data = load_yaml(text, str(path), tagged=tagged)
    return YamlDoc(Path(path), data, root)


def load_yaml(text: str, shown: str, line: int = 0, tagged: bool = False) -> tuple[yaml.Node | None, Any]:
    """The node tree and the value of one YAML document; ``shown`` names it in errors, ``line`` is
    where it begins (text from a config line: its errors name that line)."""
    try:
        loader = _TaggedLoader(text) if tagged else _BoundedLoader(text)
    except yaml.reader.ReaderError as exc:  # a raw control character: found before any parsing
        where = line or text.count("\n", 0, exc.position) + 1
        character = exc.character if isinstance(exc.character, str) else chr(exc.character)
        raise ConfigError(shown, where, f"{NOT_YAML}control character {character!r}") from None
    try:
        root = loader.get_single_node()
        if root is not None:
            _check_size(root)
        data = loader.construct_document(root) if root is not None else None
    except (ValueError, TypeError, IndexError, OverflowError) as exc:  # a tagged value PyYAML cannot make
        raise ConfigError(shown, line, f"{NOT_YAML}a value no YAML type reads ({excerpt(str(exc))})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = line or (mark.line + 1 if mark is not None else 0)
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(shown, where, f"{NOT_YAML}{problem}") from None
    finally:
        loader.dispose()
    return root, data


class _Limit(yaml.MarkedYAMLError):
    def __init__(self, problem: str, mark: yaml.Mark | None) -> None:
        super().__init__(problem=problem, problem_mark=mark)


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader with its nesting bounded, and numbers and strings checked."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise _Limit(f"nested deeper than {MAX_DEPTH} levels", mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _check_size(root: yaml.Node) -> None:
    """Refuses a document whose aliases expand to more than ``MAX_NODES`` nodes, or that holds itself
    (``&a [*a]``: no tool reads such a yml); linear in the nodes as written (a shared node is
    counted once, then reused)."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()  # nodes whose children are being counted
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            open_.discard(id(node))
            sizes[id(node)] = 1 + sum(sizes[id(child)] for child in _children(node))
            if sizes[id(node)] > MAX_NODES:
                raise _Limit(f"aliases expand it to more than {MAX_NODES} values", node.start_mark)
            continue
        if id(node) in sizes:
            continue
        if id(node) in open_:
            raise _Limit("an alias inside its own anchor (a value that holds itself)", node.start_mark)
        open_.add(id(node))
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _number(kind: str) -> Any:
    construct = getattr(SafeConstructor, f"construct_yaml_{kind}")

    def checked(loader: _BoundedLoader, node: yaml.ScalarNode) -> Any:
        if len(node.value) > MAX_NUMBER_CHARS:
            raise ConstructorError(
                None, None, f"a number of {len(node.value)} characters, over {MAX_NUMBER_CHARS}", node.start_mark
            )
        try:
            return construct(loader, node)
        except (ValueError, IndexError, OverflowError):  # `!!int ` of nothing, `!!float x`
            raise ConstructorError(None, None, f"{excerpt(node.value)!r} is not a {kind}", node.start_mark) from None

    return checked


def _string(loader: _BoundedLoader, node: yaml.ScalarNode) -> str:
    text = loader.construct_scalar(node)
    found = _CONTROL.search(text)
    if found:
        problem = f"control character {found[0]!r} in {excerpt(repr(text))}"
        raise ConstructorError(None, None, problem, node.start_mark)
    return text


_BoundedLoader.add_constructor("tag:yaml.org,2002:int", _number("int"))
_BoundedLoader.add_constructor("tag:yaml.org,2002:float", _number("float"))
_BoundedLoader.add_constructor("tag:yaml.org,2002:str", _string)


class _TaggedLoader(_BoundedLoader):
    """The bounded loader that reads a local tag's node (``!COCODataSet``) as plain data."""


def _untagged(loader: _BoundedLoader, suffix: str, node: yaml.Node) -> Any:
    del suffix
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node, deep=True)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return _string(loader, node)  # type: ignore[arg-type]


_TaggedLoader.add_multi_constructor("!", _untagged)
