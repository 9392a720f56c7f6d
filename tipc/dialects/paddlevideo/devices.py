"""PaddleVideo's ``test_train_inference_python_npu.sh`` and ``_xpu.sh``: the config's rewrites, as data."""

from __future__ import annotations

from tipc.plan.devices import VARIANT_DEVICES
from tipc.suites.variants import MKLDNN_OFF, Rewrite, Variant


def _device(device: str) -> Variant:
    """Both scripts: mkldnn off (not an x86_64 machine by ``uname -i``), ``use_gpu`` → ``use_<device>``, the
    predictor's benchmark off (AutoLog needs ``nvidia-smi``), ``python3.7`` → ``python3.9``; the main script's
    ``"gpu"`` becomes the device word, which the plan takes for an accelerator."""
    return Variant(
        (
            *MKLDNN_OFF,
            Rewrite("use_gpu", f"use_{device}"),
            Rewrite("--enable_benchmark:True", "--enable_benchmark:False"),
            Rewrite("python3.7", "python3.9"),
        )
    )


DEVICES = {device: _device(device) for device in VARIANT_DEVICES}
