"""Which characters the synthetic text may use, given a model's character dict.

Labels must only hold characters the model can emit, and glyphs the bundled
font can draw: so a dict restricts a Latin alphabet, never the other way round
(ppocr_keys_v1.txt lists thousands of CJK characters the font has no glyph for).
"""

from __future__ import annotations

import string
from pathlib import Path

from tipc.errors import ConfigError

NO_DICT_CHARSET = string.digits + string.ascii_lowercase
_PREFERRED = string.digits + string.ascii_letters
# Used only when a dict holds none of the preferred characters (e.g. a symbols dict).
_DRAWABLE = _PREFERRED + string.punctuation


def dict_entries(text: str) -> set[str]:
    """The single-character entries of a dict file (one entry a line)."""
    return {line for line in text.splitlines() if len(line) == 1}


def restrict_charset(entries: set[str]) -> str:
    """Digits and ASCII letters in ``entries``; else its ASCII punctuation; else ''."""
    preferred = "".join(c for c in _PREFERRED if c in entries)
    return preferred or "".join(c for c in _DRAWABLE if c in entries)


def charset_for_dict(dict_path: Path | None, *, named_in: str = "", line: int = 0) -> str:
    """The charset for a model whose yml names ``dict_path`` (None: no dict)."""
    if dict_path is None:
        return NO_DICT_CHARSET
    try:
        text = Path(dict_path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            named_in or str(dict_path), line, f"character dict {dict_path}: cannot read: {exc.strerror or exc}"
        ) from None
    charset = restrict_charset(dict_entries(text))
    if not charset:
        raise ConfigError(
            named_in or str(dict_path),
            line,
            f"character dict {dict_path} has no ASCII letter, digit or punctuation entry: "
            "the offline generator can only draw those",
        )
    return charset
