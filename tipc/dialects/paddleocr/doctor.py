"""What the doctor asks of a PaddleOCR config: would the bash use a GPU?"""

from __future__ import annotations

from tipc.config.model import TipcConfig
from tipc.dialects.paddleocr.config.formats import AnyConfig
from tipc.dialects.paddleocr.config.paddle2onnx import Paddle2OnnxConfig
from tipc.plan.topology import CPU_ENTRY

_GPU_WORDS = ("true", "gpu", "1")


def wants_gpu(config: AnyConfig) -> bool:
    """A ``gpu_list`` entry other than -1, or a GPU inference case."""
    gpu_entries = isinstance(config, TipcConfig) and any(e != CPU_ENTRY for e in config.gpu_list.values())
    infer = config.gpu_values() if isinstance(config, Paddle2OnnxConfig) else config.infer_use_gpu.values()
    return gpu_entries or any(v.lower() in _GPU_WORDS for v in infer)
