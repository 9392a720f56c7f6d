"""PaddleOCR's ``test_train_inference_python_<device>.sh`` (npu and xpu differ only in the word)."""

from __future__ import annotations

from tipc.plan.devices import VARIANT_DEVICES
from tipc.suites.variants import MKLDNN_OFF, Rewrite, Variant, yml_note

_SLOW = ("rec_r31_sar", "rec_mtb_nrtr")


def _device(device: str) -> Variant:
    return Variant(
        (
            *MKLDNN_OFF,
            Rewrite("use_gpu", f"use_{device}"),
            Rewrite("--benchmark:True", "--benchmark:False"),
            Rewrite("python3.7", "python3.9"),
            Rewrite("Global.epoch_num:lite_train_lite_infer=2", "Global.epoch_num:lite_train_lite_infer=1", _SLOW),
            Rewrite("gpu_list:0|0,1", "gpu_list:0,1", _SLOW),
            Rewrite(f"Global.use_{device}:True|True", f"Global.use_{device}:True", _SLOW),
            Rewrite("", " -o Global.use_gpu=False", ("ch_ppocr_mobile_v2_0_rec_FPGM",), line=18),
            Rewrite("", " Global.use_gpu=False", ("ch_ppocr_mobile_v2_0_rec_FPGM",), line=32),
        ),
        notes=(yml_note(device, f"each trainer yml (use_gpu to use_{device}, use_sync_bn off)"),),
    )


DEVICES = {device: _device(device) for device in VARIANT_DEVICES}
