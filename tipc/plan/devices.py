"""The infer device values every suite's bash reads, and the accelerators of its device scripts."""

from __future__ import annotations

CPU_VALUES = ("False", "cpu")
GPU_VALUES = ("True", "gpu")
# Accelerators planned as a suite's test_train_inference_python_<device>.sh plans them (tipc.suites.variants): that
# script rewrites the main script's "gpu" to its device's word, so "gpu" itself is then no device the sweep takes.
VARIANT_DEVICES = ("npu", "xpu")


def accelerator_values(device: str) -> tuple[str, str]:
    """The infer device values the main script runs on an accelerator, for a plan of ``device``."""
    return ("True", device) if device in VARIANT_DEVICES else GPU_VALUES
