"""Slurm's compressed host lists (``node[01-03,07]``, ``a[1-2]-b[3-4]``) expanded in order.

Slurm sorts nothing for us here: ``SLURM_NODEID`` indexes the expanded list as
written, so the order of the expansion is the rank order.
"""

from __future__ import annotations

import itertools
import re

from tipc.errors import ClusterError

_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


def expand_hostlist(text: str, source: str = "SLURM_JOB_NODELIST") -> tuple[str, ...]:
    """``"n[1-2],m"`` → ``("n1", "n2", "m")``; bracket groups in one name multiply out."""
    names: list[str] = []
    for item in _split_top_level(text, source):
        names.extend(_expand_item(item, source))
    if not names:
        raise ClusterError(f"{source} is empty; expected a host list such as node[01-02]")
    return tuple(names)


def _split_top_level(text: str, source: str) -> list[str]:
    """Split on commas outside brackets."""
    items: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text.strip():
        if ch == "[":
            depth += 1
            if depth > 1:
                raise ClusterError(f"{source}={text!r}: nested '[' is not a Slurm host list")
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise ClusterError(f"{source}={text!r}: ']' without '['")
        if ch == "," and depth == 0:
            items.append("".join(current))
            current = []
        else:
            current.append(ch)
    if depth:
        raise ClusterError(f"{source}={text!r}: '[' is never closed")
    items.append("".join(current))
    for item in items:
        if not item.strip():
            raise ClusterError(f"{source}={text!r}: empty host name between commas")
    return [item.strip() for item in items]


def _expand_item(item: str, source: str) -> list[str]:
    """One name with bracket groups: literal parts and groups multiply out left to right."""
    if "[]" in item:
        raise ClusterError(f"{source}: {item!r} has empty brackets; expected N or N-M inside")
    parts: list[tuple[str, ...]] = []
    for literal, group in re.findall(r"([^\[]*)(?:\[([^\]]*)\])?", item):
        if literal:
            parts.append((literal,))
        if group:
            parts.append(_expand_group(group, item, source))
    return ["".join(p) for p in itertools.product(*parts)]


def _expand_group(group: str, item: str, source: str) -> tuple[str, ...]:
    """``01-03,07`` → ``("01", "02", "03", "07")``; the low bound's width sets the zero padding."""
    out: list[str] = []
    for piece in group.split(","):
        m = _RANGE.match(piece.strip())
        if not m:
            raise ClusterError(f"{source}: {item!r} has {piece!r} in brackets; expected N or N-M (e.g. 01-03)")
        low, high = m.group(1), m.group(2) or m.group(1)
        if int(high) < int(low):
            raise ClusterError(f"{source}: {item!r} has the descending range {piece!r}")
        width = len(low) if low.startswith("0") else 0
        out.extend(str(n).zfill(width) for n in range(int(low), int(high) + 1))
    return tuple(out)
