"""A run's selected stages → chain jobs for the broker: what each chain and stage needs, longest first.

The capacity is the machine's (``budget``), the GPU list's, and ``--jobs``'s. A stage whose memory
nothing tells (never measured, no ``--mem-per-chain``) is assumed to need a ``--jobs N``'s share
of the memory, and under ``--jobs auto`` all of it: it runs beside no other stage until a run has
measured it. A chain that asks for more GPUs than the list holds cannot run here (``refusal``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tipc.history.durations import Durations, Measured, stage_key
from tipc.history.store import DurationKey
from tipc.plan.model import Chain, Stage
from tipc.run.plan_run import PlanRun
from tipc.schedule.demand import (
    Demand,
    chain_devices,
    is_benchmark,
    on_cpu,
    stage_cores,
    stage_keys,
    stage_memory,
)
from tipc.schedule.policy import AUTO, Schedule
from tipc.schedule.slots import Capacity


@dataclass(frozen=True, slots=True)
class StageJob:
    stage: Stage
    demand: Demand


@dataclass(frozen=True, slots=True)
class ChainJob:
    run: PlanRun
    chain: Chain
    devices: tuple[str, ...]  # the GPU ids its plan names
    stages: tuple[StageJob, ...]  # the selected ones, in order
    seconds: float  # expected duration


def capacity(schedule: Schedule, mem_mb: float, cores: int) -> Capacity:
    # auto: a chain per GPU, and one per core for chains (or their CPU stages) that hold none
    chains = cores + len(schedule.gpus) if schedule.jobs == AUTO else int(schedule.jobs or 1)
    return Capacity(mem_mb=mem_mb, cores=cores, chains=chains, gpus=schedule.gpus)


def refusal(job: ChainJob, cap: Capacity) -> str:
    """Why ``job`` cannot run on this machine; "" when it can."""
    if cap.gpus and len(job.devices) > len(cap.gpus):
        return (
            f"blocked: chain {job.chain.id} needs {len(job.devices)} GPU(s) and this node has "
            f"{len(cap.gpus)} ({','.join(cap.gpus)})"
        )
    return ""


def _demand(
    run: PlanRun, chain: Chain, stage: Stage, measured: Measured | None, schedule: Schedule, cap: Capacity
) -> Demand:
    peak = None if measured is None else measured.peak_mb
    mem = stage_memory(
        stage, chain, peak, schedule.mem_per_chain_mb, whole_tree=measured is not None and measured.whole_tree
    )
    if mem is None and isinstance(schedule.jobs, int):
        mem = cap.mem_mb / schedule.jobs
    return Demand(
        mem_mb=mem,
        cores=stage_cores(stage, chain, cap.cores),
        alone=is_benchmark(stage) and on_cpu(stage),
        keys=stage_keys(stage, str(run.log_of(stage))),
    )


def chain_jobs(
    selected: Sequence[tuple[PlanRun, Stage]],
    history: Mapping[DurationKey, Measured],
    schedule: Schedule,
    cap: Capacity,
) -> list[ChainJob]:
    """One job per chain with a selected stage, longest expected first (a long chain started last
    would end last); equal ones in the order given."""
    grouped: dict[tuple[int, str], list[Stage]] = {}
    runs: dict[int, PlanRun] = {}
    for run, stage in selected:
        runs[id(run)] = run
        grouped.setdefault((id(run), stage.chain), []).append(stage)
    durations = Durations.of(history)
    jobs = []
    for (key, chain_id), stages in grouped.items():
        run = runs[key]
        chain = next(c for c in run.plan.chains if c.id == chain_id)
        config = run.plan.config_path
        demands = []
        for stage in stages:
            measured = history.get(stage_key(config, stage.id))
            demands.append(StageJob(stage, _demand(run, chain, stage, measured, schedule, cap)))
        seconds = sum(durations.stage(config, s) for s in stages)
        jobs.append(ChainJob(run, chain, chain_devices(chain), tuple(demands), seconds))
    return sorted(jobs, key=lambda j: -j.seconds)
