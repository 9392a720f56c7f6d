"""Device choice, seeding and the distributed environment, shared by the tools."""

from __future__ import annotations

import random
import sys

import numpy as np
import paddle
import paddle.distributed as dist


class UsageError(RuntimeError):
    """A setting this paddle build cannot honour; the tools exit 1 with the message."""


def select_device(use_gpu: bool) -> str:
    if use_gpu and not paddle.is_compiled_with_cuda():
        raise UsageError(
            "Global.use_gpu=True but this paddle build has no CUDA "
            f"(paddle {paddle.__version__}, is_compiled_with_cuda() is False): set Global.use_gpu=False"
        )
    device = f"gpu:{dist.ParallelEnv().dev_id}" if use_gpu else "cpu"
    paddle.set_device(device)
    return device


def seed_everything(seed: int | None) -> None:
    if seed is None:
        return
    random.seed(seed)
    np.random.seed(seed)
    paddle.seed(seed)


def world_size() -> int:
    return dist.get_world_size()


def rank() -> int:
    return dist.get_rank()


def init_distributed() -> bool:
    """Join the process group started by ``paddle.distributed.launch``; False when alone."""
    if world_size() > 1:
        dist.init_parallel_env()
        return True
    return False


def fail(logger, message: str, code: int = 1) -> None:
    logger.error(message)
    sys.exit(code)
