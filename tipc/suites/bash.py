"""How the suites' bash reads a config and splices a command, as pure functions.

Every suite's ``test_train_inference_python.sh`` reads its config the same way: ``IFS=$'\\n'; lines=($(cat F))``
drops empty lines, and line N of what is left is role N, whatever its key. It splits a line on colons
(``IFS=":"; array=(${line})``: PaddleClas and PaddleSeg take fields 0 and 1, so a value stops at its next
colon) or at the first colon only (PaddleDetection's ``${line%%:*}`` and ``${line#*:}``). ``func_set_params``
drops a ``null`` key or a ``null``/empty value; ``func_parser_params`` picks the ``mode=value`` item of the
run's mode. A dialect composes these; ``BashLines`` keeps each role's physical line for error messages.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass

from tipc.config.bounds import check_line, excerpt, read_bounded
from tipc.config.model import NULL, Field
from tipc.errors import ConfigError
from tipc.plan.fragments import DROPPED, Fragment, shell_tokens

HEADER_PREFIX = "==="  # section headers: ``=====train_params=====``


def ifs_fields(text: str, separator: str) -> list[str]:
    """``IFS=<separator>; array=(${text})`` for a non-blank separator: empty fields kept, a trailing one dropped."""
    if not text:
        return []
    fields = text.split(separator)
    return fields[:-1] if fields[-1] == "" else fields


@dataclass(frozen=True, slots=True)
class BashLines:
    """A config as the bash's ``lines`` array sees it: its non-empty lines, with their physical numbers."""

    path: str
    texts: tuple[str, ...]
    numbers: tuple[int, ...]  # physical line of each entry (1-based)

    @classmethod
    def read(cls, path: str) -> BashLines:
        data = read_bounded(path)
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise ConfigError(path, line, "not UTF-8 text: expected a text config") from None
        return cls.parse(text, path)

    @classmethod
    def parse(cls, text: str, path: str) -> BashLines:
        kept = [(n, line) for n, line in enumerate(text.split("\n"), start=1) if line]
        for number, line in kept:
            check_line(path, number, line)
        if not kept or not kept[0][1].strip().startswith(HEADER_PREFIX):
            found = excerpt(kept[0][1].strip()) if kept else "an empty file"
            raise ConfigError(path, kept[0][0] if kept else 0, f"expected the 'train_params' header, found '{found}'")
        return cls(path, tuple(t for _, t in kept), tuple(n for n, _ in kept))

    def text(self, index: int) -> str:
        """Entry ``index`` ("" past the end: an unset bash variable)."""
        return self.texts[index] if index < len(self.texts) else ""

    def line(self, index: int) -> int:
        return self.numbers[index] if index < len(self.numbers) else 0

    def colon_key(self, index: int) -> str:
        fields = ifs_fields(self.text(index), ":")
        return fields[0] if fields else ""

    def colon_value(self, index: int) -> str:
        fields = ifs_fields(self.text(index), ":")
        return fields[1] if len(fields) > 1 else ""

    def first_colon_key(self, index: int) -> str:
        return self.text(index).split(":", 1)[0]

    def first_colon_value(self, index: int) -> str:
        """``${line#*:}``: everything after the first colon (the whole line when it has none)."""
        text = self.text(index)
        return text.split(":", 1)[1] if ":" in text else text

    def field(self, index: int, key: str, value: str) -> Field:
        return Field(key, value, self.line(index), value)

    def header_index(self, name: str) -> int | None:
        """``grep -n -w NAME file | cut -d: -f1``: the *physical* line number of a header, which the bash then
        uses as an index into ``lines`` (so it names the line after the header only when no line before it is
        empty); None when there is none (the bash then reads entry 0). ``-w``: ``to_static_train_benchmark_params``
        is not ``train_benchmark_params``."""
        word = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
        for number, text in zip(self.numbers, self.texts, strict=True):
            # ``in`` first: a zoo asks each config several times, and its lines are mostly not headers.
            if HEADER_PREFIX in text and text.lstrip().startswith(HEADER_PREFIX) and word.search(text):
                return number
        return None


def mode_param(text: str, mode: str, separator_split: bool = True) -> str:
    """``func_parser_params``: the value of the ``<mode>=<value>`` item of a line's value, else ""."""
    fields = ifs_fields(text, ":")
    value = fields[1] if len(fields) > 1 else ""
    for item in ifs_fields(value, "|"):
        parts = ifs_fields(item, "=")
        if (parts[0] if parts else "") == mode:
            return parts[1] if len(parts) > 1 else ""
    return ""


def is_dropped(key: str, value: str) -> bool:
    """``func_set_params``'s test: a null key, or a null, blank or empty value, emits one space."""
    return key == NULL or value in (NULL, " ", "")


def param(key: str, value: str, lines: BashLines, index: int) -> Fragment:
    """``func_set_params key value`` with both from the config: the text split as ``eval`` splits it."""
    if is_dropped(key, value):
        return DROPPED
    text = f"{key}={value}"
    return Fragment(text, shell_tokens(text, lines.path, lines.field(index, key, value)))


def raw_param(key: str, value: str, lines: BashLines, index: int) -> Fragment:
    """``${key}=${value}`` written without ``func_set_params``: emitted whatever the value."""
    text = f"{key}={value}"
    return Fragment(text, shell_tokens(text, lines.path, lines.field(index, key, value)))


def path_param(key: str, path: str, lines: BashLines, index: int) -> Fragment:
    """``key=<a path tipc made>``: the key (config text, ``-o Global.output_dir``) split as the shell splits it,
    the path kept whole whatever it holds."""
    if is_dropped(key, path):
        return DROPPED
    tokens = shell_tokens(key, lines.path, lines.field(index, key, path))
    if not tokens or key[-1:].isspace():
        return Fragment(f"{key}={path}", (*tokens, f"={path}"))
    return Fragment(f"{key}={path}", (*tokens[:-1], f"{tokens[-1]}={path}"))


def text(value: str, lines: BashLines, index: int) -> Fragment:
    """Config text used as a run of arguments (a script and its fixed arguments)."""
    return Fragment(value, shell_tokens(value, lines.path, lines.field(index, "", value)))


class Entries:
    """The bash's variables by entry for one dialect: its keys and values (``first_colon``: PaddleDetection's
    split at the first colon, else at every colon) and the fragments its commands are made of."""

    def __init__(self, lines: BashLines, mode: str = "", first_colon: bool = False) -> None:
        self.lines, self.mode = lines, mode
        key, value = (
            (lines.first_colon_key, lines.first_colon_value) if first_colon else (lines.colon_key, lines.colon_value)
        )
        # Each entry split once: a sweep's cells ask for the same entries again and again.
        self.key, self.value = functools.cache(key), functools.cache(value)
        # An inference sweep asks for the same fragments in each of its cells: each is split once.
        self._made: dict[tuple[str, int, str], Fragment] = {}

    def _once(self, kind: str, index: int, value: str, make: Callable[[], Fragment]) -> Fragment:
        made = self._made.get((kind, index, value))
        if made is None:
            made = self._made[kind, index, value] = make()
        return made

    def param(self, index: int, value: str | None = None) -> Fragment:
        """``func_set_params <key of index> <value, default its own>``."""
        given = self.value(index) if value is None else value
        return self._once("param", index, given, lambda: param(self.key(index), given, self.lines, index))

    def by_mode(self, index: int) -> Fragment:
        """``func_set_params`` of the entry's ``mode=value`` item for this run's mode."""
        return self.param(index, mode_param(self.lines.text(index), self.mode))

    def path(self, index: int, path: str) -> Fragment:
        return self._once("path", index, path, lambda: path_param(self.key(index), path, self.lines, index))

    def script(self, index: int, value: str | None = None) -> Fragment:
        given = self.value(index) if value is None else value
        return self._once("script", index, given, lambda: text(given, self.lines, index))


def dirname(path: str) -> str:
    """``dirname PATH`` as coreutils spells it (trailing slashes ignored, "." for a bare name)."""
    stripped = path.rstrip("/") or "/"
    head = posixpath.dirname(stripped).rstrip("/")
    return head or ("/" if stripped.startswith("/") else ".")
