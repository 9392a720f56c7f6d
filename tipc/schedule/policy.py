"""What the user asked of the scheduler, parsed: ``--jobs``, ``--mem-per-chain``, ``--gpus-available``, ``--shard``.

Every parser raises ``ValueError`` with the expected form; ``tipc.session.settings`` turns it into
a ``SettingsError`` naming the option. ``Schedule()`` (no option given) is today's serial run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

AUTO: Final = "auto"
Jobs = int | Literal["auto"] | None

_SIZE = re.compile(r"(?i)^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$")
_UNIT_MB = {"k": 1 / 1024, "": 1.0, "m": 1.0, "g": 1024.0, "t": 1024.0 * 1024}

MAX_SHARDS = 1000  # real splits have tens of parts
_SHARD = re.compile(r"\s*([0-9]{1,6})\s*/\s*([0-9]{1,6})\s*")


@dataclass(frozen=True, slots=True)
class Shard:
    """The ``index``-th (1-based) of ``count`` parts of the matrix."""

    index: int
    count: int

    @property
    def label(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass(frozen=True, slots=True)
class Schedule:
    jobs: Jobs = None  # None: one stage at a time, in order (no scheduler at all)
    mem_per_chain_mb: float | None = None  # the least memory assumed for any stage of a chain
    gpus: tuple[str, ...] = ()  # the devices chains may be pinned to; () = keep the planned ids
    shard: Shard | None = None
    run_group: str = ""  # the night the parts belong to (tipc.cluster.group); "" when nothing says

    @property
    def concurrent(self) -> bool:
        return self.jobs is not None


def parse_jobs(text: str) -> int | Literal["auto"]:
    if text.strip().lower() == AUTO:
        return AUTO
    if not text.strip().isdigit() or int(text) < 1:
        raise ValueError(f"{text!r}: expected a number of chains (1 or more) or 'auto'")
    return int(text)


def parse_size(text: str) -> float:
    """``6G``, ``6GiB``, ``800M``, ``512MB``, ``2048`` (MiB) → MiB."""
    match = _SIZE.match(text)
    if not match or float(match[1]) <= 0:
        raise ValueError(f"{text!r}: expected a size such as 6G, 800M or 2048 (MiB)")
    return float(match[1]) * _UNIT_MB[match[2].lower()]


def parse_gpus(text: str) -> tuple[str, ...]:
    """``0,1,2,3`` → ids, in order, each once."""
    ids = tuple(i.strip() for i in text.split(","))
    if not all(i.isdigit() for i in ids) or len(set(ids)) != len(ids):
        raise ValueError(f"{text!r}: expected distinct GPU ids separated by commas, e.g. 0,1,2,3")
    return ids


def parse_shard(text: str) -> Shard:
    """``K/N`` with ``1 <= K <= N <= MAX_SHARDS``, in ASCII digits (checked before any number is made:
    a run.json's shard is input too, and ``tipc merge`` lists the missing shards by number)."""
    match = _SHARD.fullmatch(text.strip())
    if not match or not 1 <= int(match[1]) <= int(match[2]) <= MAX_SHARDS:
        raise ValueError(
            f"{text[:40]!r}: expected K/N with 1 <= K <= N <= {MAX_SHARDS}, e.g. 2/8 (the second of eight parts)"
        )
    return Shard(int(match[1]), int(match[2]))
