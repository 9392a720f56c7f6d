"""Variants of the fake target's CPU config, for matrices of chains (tests/schedule, benchmarks/schedule.py).

``variant({"model_name": "m1", "gpu_list": "0|1", "Global.auto_cast": "fp32|amp"})`` is the CPU
config with each line whose key is given set to the new value: 2 GPU entries × 2 autocasts = 4 chains.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

SOURCE = Path(__file__).parent / "configs" / "fake_rec" / "train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"
CONFIG_DIR = "configs/fake_rec"  # where variants go in a copy of the fake target: its ymls are there


def variant(values: Mapping[str, str]) -> str:
    lines = []
    for line in SOURCE.read_text().splitlines():
        key = line.partition(":")[0]
        lines.append(f"{key}:{values[key]}" if key in values else line)
    missing = set(values) - {line.partition(":")[0] for line in lines}
    assert not missing, f"keys not in {SOURCE.name}: {missing}"
    return "\n".join(lines) + "\n"


def gpu_matrix(model: str, entries: str, autocasts: str = "fp32", benchmark: str = "True") -> str:
    """Chains on GPUs (run with ``--device gpu``): GPU and CPU inference cases; the fake predictor
    runs the GPU ones with ``TIPC_FAKE=infer:gpu``."""
    return variant(
        {
            "model_name": model,
            "gpu_list": entries,
            "Global.use_gpu": "True",
            "Global.auto_cast": autocasts,
            "--use_gpu": "True|False",
            "--rec_batch_num": "1",
            "--benchmark": benchmark,
        }
    )
