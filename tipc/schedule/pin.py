"""A stage moved onto the GPUs its chain was given: ``CUDA_VISIBLE_DEVICES`` and launch's ``--gpus=``.

Every GPU stage of a pinned chain gets ``CUDA_VISIBLE_DEVICES`` naming only its chain's devices,
so two chains side by side can never meet on a GPU; its CPU stages (CPU inference cases) get an
empty one and see no GPU at all, because the chain gives its GPUs back after its last GPU stage.
A launched training gets the whole list there and the same ids in ``--gpus=``: paddle's launcher
reads ``--gpus`` as ids among the visible devices (``CUDA_VISIBLE_DEVICES=4,5 … --gpus=4,5``) and
hands each worker its own. The command text of ``results_python.log`` says the ids that ran. The
record keeps what ran; the stage's passed-stamp keeps what was planned (``PlanRun``), so a later
``-k`` run on other devices may still use its outputs.
"""

from __future__ import annotations

from dataclasses import replace

from tipc.plan.env import CUDA_VISIBLE_DEVICES
from tipc.plan.model import Stage
from tipc.schedule.demand import on_cpu

GPUS = "--gpus="


def pin(stage: Stage, planned: tuple[str, ...], assigned: tuple[str, ...]) -> Stage:
    """``stage`` with each planned id replaced by the assigned one at its place, or no GPU for a
    stage computing on the CPU; unchanged when the chain holds no GPU (``assigned == ()``)."""
    if not assigned:
        return stage
    if on_cpu(stage):
        return replace(stage, env={**stage.env, CUDA_VISIBLE_DEVICES: ""})
    mapping = dict(zip(planned, assigned, strict=True))

    def remap(ids: str) -> str:
        return ",".join(mapping.get(i, i) for i in ids.split(","))

    launched = [t for t in stage.argv if t.startswith(GPUS)]
    planned_env = stage.env.get(CUDA_VISIBLE_DEVICES)
    # A launcher hands its workers the whole list; a single process sees its one device.
    visible = ",".join(assigned) if launched else remap(planned_env) if planned_env else assigned[0]
    command = stage.legacy_command
    for token in launched:
        command = command.replace(token, GPUS + remap(token[len(GPUS) :]))
    return replace(
        stage,
        argv=tuple(GPUS + remap(t[len(GPUS) :]) if t.startswith(GPUS) else t for t in stage.argv),
        env={**stage.env, CUDA_VISIBLE_DEVICES: visible},
        legacy_command=command,
    )
