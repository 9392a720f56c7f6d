"""A stage moved onto its chain's GPUs: CUDA_VISIBLE_DEVICES, launch's --gpus=, the legacy command text."""

from __future__ import annotations

import pytest

from tipc.plan.env import CUDA_VISIBLE_DEVICES
from tipc.schedule.demand import chain_devices
from tipc.schedule.pin import pin

from .plans import gpu_matrix, plan_of

CVD = CUDA_VISIBLE_DEVICES


def stage(plan, entry, name):
    chain = next(c for c in plan.chains if c.topology.entry == entry)
    return chain, next(s for s in chain.stages if s.name.startswith(name))


@pytest.mark.parametrize(
    ("entry", "name", "assigned", "visible", "gpus_flag"),
    [
        ("0", "train", ("5",), "5", None),
        ("0", "infer[gpu", ("5",), "5", None),
        ("0", "infer[cpu", ("5",), "", None),
        ("2,3", "train", ("6", "7"), "6,7", "--gpus=6,7"),
        ("2,3", "eval", ("6", "7"), "6", None),
        ("2,3", "train", ("2", "3"), "2,3", "--gpus=2,3"),
    ],
    ids=["train", "gpu-infer", "cpu-infer-sees-no-gpu", "launch", "after-launch-first-gpu", "same-ids"],
)
def test_pinned_devices(entry, name, assigned, visible, gpus_flag):
    plan = plan_of(gpu_matrix("m", "0|2,3"))
    chain, planned = stage(plan, entry, name)
    pinned = pin(planned, chain_devices(chain), assigned)
    assert pinned.env[CVD] == visible
    assert [t for t in pinned.argv if t.startswith("--gpus=")] == ([gpus_flag] if gpus_flag else [])
    if gpus_flag:  # results_python.log says the ids that ran
        assert gpus_flag in pinned.legacy_command.split()
    assert (pinned.id, pinned.log, pinned.outputs) == (planned.id, planned.log, planned.outputs)


def test_a_chain_without_gpus_is_left_as_planned():
    plan = plan_of(gpu_matrix("m", "0|2,3"), device="cpu")
    chain = plan.chains[1]
    assert all(pin(s, chain_devices(chain), ()) is s for s in chain.stages)
