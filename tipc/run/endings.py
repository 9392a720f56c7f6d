"""How a stage's process ended, in words: the signal by name, and the out-of-memory killer when
the evidence points at it.

A training killed by the kernel's OOM killer shows up as ``exit code -9`` and nothing more (seen on
real PaddleOCR: PP-OCRv4_mobile_rec's lite train peaked at 17.4 GB on a 24 GB machine). Two pieces of
evidence name the cause: the kernel's ``oom_kill`` counter (``/proc/vmstat``, every kill since boot)
rose while the stage ran (``tipc.proc.child.oom_kills``), or the stage's peak memory came close
to the memory limit (the cgroup's, else the machine's).
"""

from __future__ import annotations

import signal
from pathlib import Path

MEMINFO = Path("/proc/meminfo")
CGROUP_LIMITS = (Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"))
NEAR_LIMIT = 0.9  # a peak within 10 % of the limit: the OOM killer is the likely hand


def memory_limit_kb() -> int | None:
    """The cgroup's memory limit when one is set, else the machine's memory (KiB)."""
    for path in CGROUP_LIMITS:
        try:
            text = path.read_text().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 1 << 60:  # "max" or a huge number: no limit
            return int(text) // 1024
    try:
        for line in MEMINFO.read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _gb(kb: int) -> str:
    return f"{kb / 1024 / 1024:.1f} GB"


def describe_exit(
    returncode: int, peak_kb: int | None = None, oom_killed: bool = False, limit_kb: int | None = None
) -> str:
    """``exit code N``, or ``killed by SIGKILL (signal 9)`` with the OOM evidence when there is some."""
    if returncode >= 0:
        return f"exit code {returncode}"
    number = -returncode
    text = f"killed by {signal_name(number)} (signal {number})"
    if number != signal.SIGKILL:
        return text
    peak = f"; its peak memory was {_gb(peak_kb)}" if peak_kb else ""
    if oom_killed:
        return f"{text}: the kernel's out-of-memory killer (its kill count rose during the stage){peak}"
    if peak_kb and limit_kb and peak_kb >= NEAR_LIMIT * limit_kb:
        return f"{text}: likely the kernel's out-of-memory killer{peak} of a {_gb(limit_kb)} limit"
    return text
