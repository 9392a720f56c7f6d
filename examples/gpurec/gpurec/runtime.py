"""The device and the process group: one CUDA device per process, as paddle's launcher hands them out.

Ranks come from the variables ``paddle.distributed.launch`` sets (``PADDLE_TRAINER_ID``,
``PADDLE_TRAINERS_NUM``), else torchrun's (``RANK``, ``WORLD_SIZE``); the process group meets at
``MASTER_ADDR:MASTER_PORT``, which this repo's launcher (``launcher/paddle/distributed/launch.py``)
sets too. A process uses the first device it can see: the launcher gives each worker one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

import torch
import torch.distributed as dist


class UsageError(RuntimeError):
    """A setting this machine cannot honour; the tools exit 1 with the message."""


def rank(environ: Mapping[str, str] = os.environ) -> int:
    return int(environ.get("PADDLE_TRAINER_ID", environ.get("RANK", "0")))


def world_size(environ: Mapping[str, str] = os.environ) -> int:
    return int(environ.get("PADDLE_TRAINERS_NUM", environ.get("WORLD_SIZE", "1")))


def select_device(use_gpu: bool) -> torch.device:
    """``cuda:0`` (the one device this process sees) or the CPU; ``UsageError`` for a GPU that is not there."""
    if not use_gpu:
        return torch.device("cpu")
    if not torch.cuda.is_available():
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        raise UsageError(
            f"use_gpu=True but torch {torch.__version__} sees no CUDA device "
            f"(CUDA_VISIBLE_DEVICES={visible!r}, torch built for CUDA {torch.version.cuda}): set it False"
        )
    torch.cuda.set_device(0)
    return torch.device("cuda", 0)


def init_distributed(device: torch.device) -> bool:
    """Join the launcher's process group (NCCL on GPUs, gloo on CPUs); False when alone."""
    if world_size() <= 1:
        return False
    dist.init_process_group(
        backend="nccl" if device.type == "cuda" else "gloo",
        rank=rank(),
        world_size=world_size(),
        device_id=device if device.type == "cuda" else None,
    )
    return True


def seed_everything(seed: int | None) -> None:
    if seed is not None:
        torch.manual_seed(int(seed))


def fail(logger, message: str, code: int = 1) -> None:
    logger.error(message)
    sys.exit(code)
