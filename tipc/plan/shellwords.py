"""``shlex.split(text)`` (POSIX, no comments) in linear time.

``shlex`` grows each token one character at a time by string concatenation, which is quadratic in
the token's length: a 400 KiB config value took seconds to plan and 10 MB never finished. This
splitter reads whole runs with one regular expression (every alternative matches in a single pass,
without backtracking) and gives the same words and the same errors as ``shlex.split``:

* unquoted spaces, tabs, CR and LF separate words; a backslash takes the next character as it is;
* ``'…'`` keeps everything inside; ``"…"`` keeps everything but ``\\"`` and ``\\\\``, which lose their
  backslash;
* quotes and words next to each other make one word, and an empty quoted word is a word;
* an unclosed quote is ``ValueError("No closing quotation")``, a trailing backslash (outside quotes,
  or inside double quotes) ``ValueError("No escaped character")``.
"""

from __future__ import annotations

import re

_PIECES = re.compile(
    r"""(?P<space>[ \t\r\n]+)
      | '(?P<single>[^']*)'
      | "(?P<double>[^"\\]*(?:\\.[^"\\]*)*)"
      | \\(?P<escaped>.)
      | (?P<word>[^ \t\r\n'"\\]+)
      | (?P<unclosed>.)""",
    re.VERBOSE | re.DOTALL,
)
_DOUBLE_ESCAPE = re.compile(r'\\(["\\])')
# An unclosed double quote whose text ends in an escaping backslash: shlex reports the backslash.
_DANGLING_ESCAPE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*\\', re.DOTALL)


def split_words(text: str) -> list[str]:
    """The words of ``text`` exactly as ``shlex.split(text)`` gives them (see the module docstring)."""
    words: list[str] = []
    parts: list[str] | None = None  # the word being read; None between words
    for piece in _PIECES.finditer(text):
        kind = piece.lastgroup
        assert kind is not None  # every alternative of _PIECES is a named group
        if kind == "space":
            if parts is not None:
                words.append("".join(parts))
            parts = None
            continue
        if kind == "unclosed":
            raise ValueError(_unclosed(text, piece.start()))
        parts = [] if parts is None else parts
        value = piece.group(kind)
        parts.append(_DOUBLE_ESCAPE.sub(r"\1", value) if kind == "double" else value)
    if parts is not None:
        words.append("".join(parts))
    return words


def _unclosed(text: str, start: int) -> str:
    if text[start] == "'":
        return "No closing quotation"
    if text[start] == "\\" or _DANGLING_ESCAPE.fullmatch(text, start):
        return "No escaped character"
    return "No closing quotation"
