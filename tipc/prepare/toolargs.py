"""A stage's argv read the way a PaddleOCR tool reads its own: the yml, the ``-o`` words, a flag's value.

Only the words after the script (the first ``*.py`` word) reach the tool; the words before it
belong to the interpreter and to ``paddle.distributed.launch``. The tools parse with argparse
(``tools/program.py``'s ArgsParser): ``-o``/``--opt`` takes every following word up to the next
option, a later ``-o`` replaces an earlier one, and any other flag keeps its last value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

CONFIG_FLAGS = ("-c", "--config")
_OPT_FLAGS = ("-o", "--opt")
# argparse reads these as values, not options, when the parser has no numeric-looking options.
_NEGATIVE_NUMBER = re.compile(r"-\d+|-\d*\.\d+")


def tool_words(argv: Sequence[str]) -> tuple[str, ...]:
    """The words after the script; () when no word names a ``.py`` script."""
    for index, word in enumerate(argv):
        if word.endswith(".py"):
            return tuple(argv[index + 1 :])
    return ()


def _is_option(word: str) -> bool:
    return len(word) > 1 and word.startswith("-") and not _NEGATIVE_NUMBER.fullmatch(word)


def flag_value(words: Sequence[str], *names: str) -> str | None:
    """The last value given to any of ``names``, as ``NAME VALUE`` or ``NAME=VALUE`` (None: never)."""
    value = None
    for index, word in enumerate(words):
        for name in names:
            if word == name and index + 1 < len(words):
                value = words[index + 1]
            elif word.startswith(name + "="):
                value = word[len(name) + 1 :]
    return value


def opt_words(words: Sequence[str]) -> tuple[str, ...]:
    """The words of the last ``-o``/``--opt`` (``nargs="+"``: up to the next option)."""
    taken: tuple[str, ...] = ()
    index = 0
    while index < len(words):
        if words[index] not in _OPT_FLAGS:
            index += 1
            continue
        end = index + 1
        while end < len(words) and not _is_option(words[end]):
            end += 1
        taken = tuple(words[index + 1 : end])
        index = end
    return taken


def opt_pairs(words: Sequence[str]) -> dict[str, str]:
    """``key -> word`` for every ``key=value`` word of the last ``-o``; a later key wins, as in
    the tools' dict. Words without ``=`` are left out (the tools would stop on them)."""
    pairs: dict[str, str] = {}
    for word in opt_words(words):
        key, sep, _ = word.strip().partition("=")
        if sep and key:
            pairs.pop(key, None)  # keep the order of the winning words
            pairs[key] = word.strip()
    return pairs
