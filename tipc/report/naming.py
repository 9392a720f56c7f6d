"""Names and anchors derived from records: one place decides how things are called."""

from __future__ import annotations

import re
from collections.abc import Iterable

from tipc.history.store import StageKey
from tipc.results.records import StageRecord

RowKey = tuple[str, int]  # (chain id, node rank)

# Stage names in the order a chain runs them (benchmark_train's profiling pass comes before its train).
KIND_ORDER = ("profile", "train", "eval", "export")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.]+")


def stage_key(record: StageRecord) -> StageKey:
    return record.id, record.node_rank


def row_key(record: StageRecord) -> RowKey:
    return record.chain, record.node_rank


def stage_name(record: StageRecord) -> str:
    """``train``, ``eval``, ``export`` or ``infer[<case label>]``: the part of the id after the chain."""
    return record.id.split("::", 1)[1] if "::" in record.id else record.kind


def infer_label(name: str) -> str | None:
    """The case label inside ``infer[...]``, or ``None`` for other stage names."""
    if name.startswith("infer[") and name.endswith("]"):
        return name[len("infer[") : -1]
    return None


def is_multi_node(records: Iterable[StageRecord]) -> bool:
    return len({r.node_rank for r in records}) > 1


def node_label(rank: int, host: str) -> str:
    return f"node {rank}" + (f" · {host}" if host else "")


def argv_option(argv: tuple[str, ...], flag: str) -> str | None:
    """The value of ``flag`` in a recorded command, spelt ``--flag=value`` or ``--flag value``."""
    for i, tok in enumerate(argv):
        if tok.startswith(f"{flag}="):
            return tok.split("=", 1)[1]
        if tok == flag and i + 1 < len(argv):
            return argv[i + 1]
    return None


def chain_parts(chain_id: str) -> tuple[str, str]:
    """(trainer, autocast) from a chain id ``<trainer>-<topology>-<autocast>``.

    The topology part may itself hold dashes (``gpus_-1``), the other two never do.
    """
    parts = chain_id.split("-")
    return (parts[0], parts[-1]) if len(parts) >= 3 else (chain_id, "")


def _slug(text: str) -> str:
    return _UNSAFE.sub("-", text).strip("-") or "x"


class Anchoring:
    """Readable, unique HTML ids for stage or row keys, given as the keys come (a counter breaks slug
    collisions)."""

    def __init__(self, prefix: str, multi: bool) -> None:
        self.prefix, self.multi = prefix, multi
        self.anchors: dict[tuple[str, int], str] = {}
        self.used: set[str] = set()

    def add(self, key: tuple[str, int]) -> str:
        """The anchor of ``key``: the one it was given, else a new one."""
        found = self.anchors.get(key)
        if found is not None:
            return found
        base = f"{self.prefix}-{_slug(key[0])}" + (f"-n{key[1]}" if self.multi else "")
        anchor, n = base, 1
        while anchor in self.used:
            n += 1
            anchor = f"{base}-{n}"
        self.used.add(anchor)
        self.anchors[key] = anchor
        return anchor
