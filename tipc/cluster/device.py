"""CPU or GPU (or an NPU or XPU, named): the device a run targets, decided once, with the reason stated."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Literal

from tipc.errors import ClusterError

Device = Literal["cpu", "gpu", "npu", "xpu"]
# Accelerators planned as each suite's device script plans them (tipc.suites.variants); never detected: named.
NAMED_ONLY = ("npu", "xpu")


def detect_device(
    environ: Mapping[str, str], which: Callable[[str], str | None], exists: Callable[[str], bool] = os.path.exists
) -> tuple[Device, str]:
    """``("gpu", why)`` when this machine shows a usable NVIDIA GPU, else ``("cpu", why)``."""
    visible = environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1"):
        return "cpu", f"CUDA_VISIBLE_DEVICES={visible!r} hides every GPU"
    smi = which("nvidia-smi")
    if smi:
        return "gpu", f"nvidia-smi found at {smi}"
    if exists("/dev/nvidia0"):
        return "gpu", "/dev/nvidia0 exists"
    return "cpu", "no CUDA device: no nvidia-smi on PATH and no /dev/nvidia0"


def choose_device(
    requested: str,
    environ: Mapping[str, str],
    which: Callable[[str], str | None],
    exists: Callable[[str], bool] = os.path.exists,
) -> tuple[Device, str]:
    """``--device auto`` detects a GPU; an explicit ``cpu``, ``gpu``, ``npu`` or ``xpu`` is taken as given."""
    if requested in ("cpu", "gpu", *NAMED_ONLY):
        return requested, f"--device {requested}"  # type: ignore[return-value]
    if requested != "auto":
        raise ClusterError(f"--device {requested!r}: expected auto, cpu, gpu, npu or xpu")
    device, reason = detect_device(environ, which, exists)
    return device, f"--device auto: {reason}"
