"""What a chain and each of its stages need to run beside others, read from the plan and history.

* **GPUs**: a chain holds its devices from its first stage to its last (its stages pass models
  between them on those devices); their number is its topology's, or the ids its stages'
  ``CUDA_VISIBLE_DEVICES`` name (whole_infer chains).
* **Cores**: a stage computing on the CPU takes one core per process (``--nproc_per_node`` for a
  launched training) or its ``cpu_threads`` (CPU inference); a stage computing on a GPU takes none.
* **Memory**: the stage's recorded peak, its whole process tree's (launched ranks, DataLoader
  workers: ``tipc.run.treemem``), × ``MARGIN``; a record from before tree figures holds one
  process's, × processes for a launched training. Never less than ``--mem-per-chain``; ``None`` when
  neither is known: the broker then assumes the worst (see ``tipc.schedule.jobs``).
* **Alone**: a benchmark stage (``--benchmark True``, or benchmark_train's profiling and timed train)
  runs alone on its devices, so that its figures
  stay honest: one on a GPU by the rule above (its chain's GPUs are its chain's only); one on the
  CPU with no other stage computing on the CPU (see ``slots``): stages on GPUs go on beside it.
* **Keys**: what must not be shared at one time: the stage's log file (two configs of one model
  may name the same infer log) and a launch's fixed start port.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from tipc.plan.env import CUDA_VISIBLE_DEVICES
from tipc.plan.model import PROFILE, Chain, Stage, StageKind

MARGIN = 1.25  # recorded peaks vary from run to run; the OOM killer does not negotiate
_TRUE = ("true", "yes", "t", "y", "1")


@dataclass(frozen=True, slots=True)
class Demand:
    mem_mb: float | None  # None: unknown
    cores: int
    alone: bool = False
    keys: frozenset[str] = frozenset()


def chain_devices(chain: Chain) -> tuple[str, ...]:
    """The GPU ids a chain's plan names, in order: its topology's, else its stages' environment,
    else CUDA's default device when it has GPU inference cases (whole_infer without a GPU given)."""
    if chain.topology.devices:
        return chain.topology.devices
    named = (s.env.get(CUDA_VISIBLE_DEVICES) for s in chain.stages)
    ids = tuple(dict.fromkeys(i for value in named if value for i in value.split(",")))
    if not ids and any(s.infer is not None and s.infer.device == "gpu" for s in chain.stages):
        return ("0",)
    return ids


def _flag(argv: tuple[str, ...], name: str) -> Iterator[str]:
    """Every value given to ``name`` in ``argv``, as ``name=v`` or ``name v``."""
    for i, token in enumerate(argv):
        if token.startswith(name + "="):
            yield token.partition("=")[2]
        elif token == name and i + 1 < len(argv):
            yield argv[i + 1]


def is_benchmark(stage: Stage) -> bool:
    if stage.speed is not None or stage.name == PROFILE:
        return True
    return stage.kind is StageKind.INFER and any(v.lower() in _TRUE for v in _flag(stage.argv, "--benchmark"))


def on_cpu(stage: Stage) -> bool:
    """Does the stage compute on the CPU? Inference says by its case; the rest by the devices their
    environment names (or a launch's ``--gpus=``)."""
    if stage.infer is not None:
        return stage.infer.device == "cpu"
    return not (stage.env.get(CUDA_VISIBLE_DEVICES) or any(t.startswith("--gpus=") for t in stage.argv))


def stage_cores(stage: Stage, chain: Chain, host_cores: int) -> int:
    if not on_cpu(stage):
        return 0
    wanted = 1
    if stage.kind is StageKind.TRAIN:
        wanted = chain.topology.nproc
    elif stage.infer is not None and (stage.infer.cpu_threads or "").isdigit():
        wanted = int(stage.infer.cpu_threads or 1)
    return max(1, min(wanted, host_cores))


def stage_memory(
    stage: Stage, chain: Chain, peak_mb: float | None, floor_mb: float | None, *, whole_tree: bool = False
) -> float | None:
    """``whole_tree``: ``peak_mb`` is the stage's whole tree's already."""
    launched = stage.kind is StageKind.TRAIN and chain.topology.launches and not whole_tree
    processes = chain.topology.nproc if launched else 1
    known = None if peak_mb is None else peak_mb * processes * MARGIN
    values = [v for v in (known, floor_mb) if v is not None]
    return max(values) if values else None


def stage_keys(stage: Stage, log: str) -> frozenset[str]:
    ports = (f"port {p}" for p in _flag(stage.argv, "--start_port"))
    return frozenset((f"file {log}", *ports))
