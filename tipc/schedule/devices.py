"""The GPUs chains may be pinned to, and an xdist worker's share of them.

The list comes from ``--gpus-available``, else ``TIPC_GPUS_AVAILABLE`` (both also serve to simulate
a GPU node on a machine without one), else the harness's own ``CUDA_VISIBLE_DEVICES`` when it lists
ids (a Slurm job's GPUs, a user's restriction: never pin outside it), else the NVIDIA driver's
``/proc/driver/nvidia/gpus/`` (one entry per GPU, ids 0…n-1 as CUDA numbers them by default).
Reading a directory rather than asking ``nvidia-smi`` keeps this module from starting a process.
No list: chains keep the device ids their config gave them, and two chains that name the same id
never run together.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path

from tipc.plan.env import CUDA_VISIBLE_DEVICES as VISIBLE
from tipc.schedule.policy import parse_gpus

ENV = "TIPC_GPUS_AVAILABLE"
NVIDIA_GPUS = Path("/proc/driver/nvidia/gpus")


def available_gpus(given: str | None, environ: Mapping[str, str], driver: Path = NVIDIA_GPUS) -> tuple[str, ...]:
    """The ids; ``ValueError`` for a malformed list, naming where it came from."""
    for text, source in ((given, "--gpus-available"), (environ.get(ENV), ENV)):
        if text is not None and text.strip():
            try:
                return parse_gpus(text)
            except ValueError as exc:
                raise ValueError(f"{source} {exc}") from None
    visible = environ.get(VISIBLE)
    if visible is not None:
        with contextlib.suppress(ValueError):  # GPU-<uuid> names: not ids tipc can hand out
            return parse_gpus(visible) if visible.strip() not in ("", "-1") else ()
    try:
        return tuple(str(i) for i in range(sum(1 for _ in driver.iterdir())))
    except OSError:
        return ()


def worker_slot(gpus: tuple[str, ...], index: int, workers: int) -> tuple[str, ...]:
    """pytest-xdist worker ``index`` of ``workers``: an equal, disjoint run of the list (the
    remainder stays idle rather than making one worker's chains see more devices than another's)."""
    size = len(gpus) // workers
    return gpus[index * size : (index + 1) * size]


def worker_index(workerid: str) -> int:
    """xdist names its workers ``gw0``, ``gw1``, …: the number is the slot."""
    digits = workerid[len(workerid.rstrip("0123456789")) :]
    return int(digits) if digits else 0
