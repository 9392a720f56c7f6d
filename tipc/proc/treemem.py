"""A stage's memory: the sum over its live process tree, sampled while it runs.

``wait4`` gives the peak of one process (the stage's root, or the largest descendant it waited
for): a training's DataLoader workers and a launch's ranks are not in it, and they are most of the
memory (PaddleOCR's PP-OCRv3 recognition: 4.8 GB for the root, 9.2 GB for its tree). The supervising
loop (``tipc.proc.child``) asks for a sample at each tick; every ``SAMPLE_EVERY`` seconds it lists the
tree's live pids and sums their proportional set size (PSS, ``/proc/<pid>/smaps_rollup``: pages shared between a
parent and its forked workers are counted once over them, not once per process), else their
resident size (``/proc/<pid>/statm``) where smaps cannot be read. The peak of those sums is the
stage's figure, which the scheduler's memory budget plans with.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable

PROC = "/proc"
SAMPLE_EVERY = 1.0  # seconds: the figure's grain; a sample lists /proc once and reads each process's smaps (~1 ms)
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024

Read = Callable[[str], bytes | None]  # a /proc file's bytes, None when it cannot be read (gone, not ours)


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def pss_kb(smaps_rollup: bytes) -> int | None:
    """The ``Pss:`` line of a ``smaps_rollup`` (kB), None when it has none."""
    for line in smaps_rollup.splitlines():
        if line.startswith(b"Pss:"):
            parts = line.split()
            return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
    return None


def rss_kb(statm: bytes, page_kb: int = PAGE_KB) -> int | None:
    """The resident size from a ``statm`` (its second field, in pages), None when it does not read."""
    parts = statm.split()
    return int(parts[1]) * page_kb if len(parts) > 1 and parts[1].isdigit() else None


def process_kb(pid: int, read: Read = _read, page_kb: int = PAGE_KB) -> int | None:
    """One process's memory: its PSS where smaps can be read, else its RSS; None when it is gone."""
    rollup = read(f"{PROC}/{pid}/smaps_rollup")
    pss = pss_kb(rollup) if rollup else None
    if pss is not None:
        return pss
    statm = read(f"{PROC}/{pid}/statm")
    return rss_kb(statm, page_kb) if statm else None


def tree_kb(pids: Iterable[int], read: Read = _read, page_kb: int = PAGE_KB) -> int | None:
    """The memory of the processes ``pids`` together (kB); None when not one of them could be read."""
    sizes = [size for size in (process_kb(pid, read, page_kb) for pid in set(pids)) if size is not None]
    return sum(sizes) if sizes else None


class TreePeak:
    """The largest ``tree_kb`` seen over a stage's samples (``peak_kb``: None before the first)."""

    def __init__(
        self,
        every: float = SAMPLE_EVERY,
        clock: Callable[[], float] = time.monotonic,
        measure: Callable[[Iterable[int]], int | None] = tree_kb,
    ) -> None:
        self.every, self._clock, self._measure = every, clock, measure
        self._last = clock()  # the first sample after ``every``: a quick stage costs no /proc listing
        self.peak_kb: int | None = None

    def sample(self, pids: Callable[[], Iterable[int]]) -> None:
        """Sum the memory of the processes ``pids()`` lists, unless the last sample is younger than
        ``every`` (then the tree is not even listed)."""
        now = self._clock()
        if now - self._last < self.every:
            return
        self._last = now
        size = self._measure(pids())
        if size is not None and (self.peak_kb is None or size > self.peak_kb):
            self.peak_kb = size
