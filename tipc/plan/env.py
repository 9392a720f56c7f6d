"""Per-stage environment, explicit for every stage so nothing leaks between gpu entries (B6)."""

from __future__ import annotations

from tipc.plan.model import StageKind, Topology

CUDA_VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES"
FLAGS_START_PORT = "FLAGS_START_PORT"


def stage_env(topology: Topology, kind: StageKind, start_port: int | None = None) -> dict[str, str | None]:
    """Launch-based trains pick devices with ``--gpus``; every other stage sees the entry's first GPU;
    CPU stages see none."""
    if kind is StageKind.TRAIN and topology.launches:
        env: dict[str, str | None] = {CUDA_VISIBLE_DEVICES: None}
        if start_port is not None:
            env[FLAGS_START_PORT] = str(start_port)
        return env
    if not topology.devices:
        return {CUDA_VISIBLE_DEVICES: None}
    return {CUDA_VISIBLE_DEVICES: topology.devices[0]}


def whole_infer_env(gpu: str | None, cpu_only: bool) -> dict[str, str | None]:
    """whole_infer: the bash's 3rd argument for every stage; nothing set when it is not given."""
    if cpu_only:
        return {CUDA_VISIBLE_DEVICES: None}
    return {CUDA_VISIBLE_DEVICES: gpu} if gpu else {}
