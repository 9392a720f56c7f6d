"""PaddleRec's ``test_train_inference_python_npu.sh`` and ``_xpu.sh``: the config's rewrites, as data, and what
the scripts change in the checkout, as plan notes."""

from __future__ import annotations

from tipc.plan.devices import VARIANT_DEVICES
from tipc.suites.variants import Rewrite, Variant, yml_note


def _device(device: str) -> Variant:
    """Both scripts: ``runner.use_gpu`` and ``--use_gpu`` → ``use_<device>``, TensorRT and the benchmark off,
    ``python3.7`` → ``python3.9``."""
    notes: tuple[str, ...] = (
        yml_note(
            device,
            f"the trainer's default runner.use_gpu (to False), to_static.py and the predictor (use_gpu to "
            f"use_{device}, the GPU config call to the {device} one) and each model yaml the config names "
            f"(use_gpu to use_{device})",
        ),
    )
    if device == "npu":
        notes += (
            "for kim the npu script sets FLAGS_npu_storage_format=0 (NHWC input to its Conv2d fails); tipc does not "
            "set it: export it for kim",
        )
    return Variant(
        (
            Rewrite("runner.use_gpu", f"runner.use_{device}"),
            Rewrite("--use_gpu", f"--use_{device}"),
            Rewrite("--enable_tensorRT:False|True", "--enable_tensorRT:False"),
            Rewrite("--enable_tensorRT:True|False", "--enable_tensorRT:False"),
            Rewrite("--benchmark:True", "--benchmark:False"),
            Rewrite("python3.7", "python3.9"),
        ),
        notes=notes,
    )


DEVICES = {device: _device(device) for device in VARIANT_DEVICES}
