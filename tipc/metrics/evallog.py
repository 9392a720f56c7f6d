"""The numbers an eval run prints after ``metric eval ***************``."""

from __future__ import annotations

import re

from .logtext import messages

_HEADER = re.compile(r"metric eval \*+")
_PAIR = re.compile(r"^\s*([\w.]+)\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|nan|inf)\s*$")


def eval_metrics(text: str) -> dict[str, float]:
    """``{key: value}`` of the last ``metric eval`` block; empty when there is none.

    The block ends at the first prefixed line that is not ``<key>:<number>``;
    unprefixed lines (warnings from other libraries) inside it are skipped.
    """
    lines = list(messages(text))
    starts = [i for i, (_, message) in enumerate(lines) if _HEADER.search(message)]
    if not starts:
        return {}
    found: dict[str, float] = {}
    for prefixed, message in lines[starts[-1] + 1 :]:
        match = _PAIR.match(message)
        if match:
            found[match.group(1)] = float(match.group(2))
        elif prefixed:
            break
    return found
