"""What this machine offers the stages: memory now available, and cores.

Memory is ``MemAvailable`` (what the kernel can give without swapping), capped by the cgroup's
room (limit − usage) where a limit is set, less ``RESERVE`` for the harness, the page cache the
stages read their data through, and what the estimates miss.
"""

from __future__ import annotations

import os
from pathlib import Path

MEMINFO = Path("/proc/meminfo")
CGROUP = (  # (limit, usage): cgroup v2, then v1
    (Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory.current")),
    (Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"), Path("/sys/fs/cgroup/memory/memory.usage_in_bytes")),
)
RESERVE = 0.1


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def available_mb(meminfo: Path = MEMINFO, cgroup: tuple[tuple[Path, Path], ...] = CGROUP) -> float:
    """MiB the stages may use at once; 0 when the machine does not say (then one stage at a time)."""
    free_kb = 0
    try:
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                free_kb = int(line.split()[1])
    except (OSError, ValueError, IndexError):
        free_kb = 0
    room = free_kb / 1024
    for limit_path, usage_path in cgroup:
        limit, usage = _read_int(limit_path), _read_int(usage_path)
        if limit is not None and usage is not None and limit < 1 << 60:  # a huge number: no limit
            room = min(room, max(0, limit - usage) / 1024 / 1024)
            break
    return room * (1 - RESERVE)


def host_cores() -> int:
    """The cores this process may run on (a cgroup's or taskset's affinity, not the machine's count)."""
    return len(os.sched_getaffinity(0)) or 1
