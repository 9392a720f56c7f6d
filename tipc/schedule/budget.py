"""What this machine offers the stages: memory now available, and cores.

Memory is ``MemAvailable`` (what the kernel can give without swapping), capped by the room (limit −
usage) of this process's own cgroup and those above it where a limit is set (a Slurm job's, not the
machine's root cgroup), less ``RESERVE`` for the harness, the page cache the
stages read their data through, and what the estimates miss.
"""

from __future__ import annotations

import os
from pathlib import Path

MEMINFO = Path("/proc/meminfo")
PROC_CGROUP = Path("/proc/self/cgroup")
CGROUP_ROOT = Path("/sys/fs/cgroup")
V2 = ("memory.max", "memory.current")
V1 = ("memory.limit_in_bytes", "memory.usage_in_bytes")
RESERVE = 0.1
Files = tuple[tuple[Path, Path], ...]


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def cgroup_files(proc_cgroup: Path = PROC_CGROUP, root: Path = CGROUP_ROOT) -> Files:
    """(limit, usage) files of this process's own memory cgroup and of each cgroup above it, nearest
    first: a Slurm job's limit is set on the job's cgroup, its steps and tasks sit below it. cgroup v2
    (``0::/path``) where it is mounted, else v1's memory controller (``N:memory:/path``)."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return ()
    for line in lines:
        hierarchy, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if hierarchy == "0" and not controllers and (root / "cgroup.controllers").is_file():
            base, (limit, usage) = root, V2
        elif "memory" in controllers.split(","):
            base, (limit, usage) = root / "memory", V1
        else:
            continue
        own = base / path.lstrip("/")
        levels = [own, *(p for p in own.parents if p.is_relative_to(base))]
        return tuple((level / limit, level / usage) for level in levels)
    return ()


def available_mb(meminfo: Path = MEMINFO, cgroup: Files | None = None) -> float:
    """MiB the stages may use at once; 0 when the machine does not say (then one stage at a time).
    ``cgroup``: the (limit, usage) files to cap it by (default: this process's own cgroups)."""
    free_kb = 0
    try:
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                free_kb = int(line.split()[1])
    except (OSError, ValueError, IndexError):
        free_kb = 0
    room = free_kb / 1024
    for limit_path, usage_path in cgroup_files() if cgroup is None else cgroup:
        limit, usage = _read_int(limit_path), _read_int(usage_path)
        if limit is not None and usage is not None and limit < 1 << 60:  # a huge number: no limit
            room = min(room, max(0, limit - usage) / 1024 / 1024)
    return room * (1 - RESERVE)


def host_cores() -> int:
    """The cores this process may run on (a cgroup's or taskset's affinity, not the machine's count)."""
    return len(os.sched_getaffinity(0)) or 1
