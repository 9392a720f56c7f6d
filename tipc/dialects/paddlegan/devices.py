"""PaddleGAN's ``test_train_inference_python_npu.sh`` and ``_xpu.sh``: the config's rewrites, as data, and the
launch option their edit of the main script renames (``--gpus`` → ``--npus``, ``--xpus``)."""

from __future__ import annotations

from tipc.plan.devices import VARIANT_DEVICES
from tipc.suites.variants import Rewrite, Variant


def _device(device: str) -> Variant:
    """Both scripts: the profiler's ``state=GPU`` and ``--device:gpu`` → the device, the benchmark off,
    ``python3.7`` → ``python3.9``, shorter lite runs of Pix2pix and edvr (the model_name line's value)."""
    return Variant(
        (
            Rewrite("state=GPU", f"state={device.upper()}"),
            Rewrite("--device:gpu", f"--device:{device}"),
            Rewrite("--benchmark:True", "--benchmark:False"),
            Rewrite("python3.7", "python3.9"),
            Rewrite("lite_train_lite_infer=10", "lite_train_lite_infer=1", ("Pix2pix",)),
            Rewrite("-o log_config.interval=1", "-o log_config.interval=1 snapshot_config.interval=1", ("Pix2pix",)),
            Rewrite("lite_train_lite_infer=100", "lite_train_lite_infer=10", ("edvr",)),
            Rewrite("snapshot_config.interval=25", "snapshot_config.interval=5", ("edvr",)),
        ),
        launch_devices=f"--{device}s",
    )


DEVICES = {device: _device(device) for device in VARIANT_DEVICES}
