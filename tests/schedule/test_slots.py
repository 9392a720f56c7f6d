"""The broker under real threads: disjoint devices, memory and cores bounds, stages alone, shared keys."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import pytest

from tipc.schedule.demand import Demand
from tipc.schedule.slots import Broker, Capacity, Stopped

TICK = 0.03


@dataclass(frozen=True)
class Job:
    name: str
    devices: tuple[str, ...]
    stages: tuple[Demand, ...]


@dataclass(frozen=True)
class Ran:
    job: str
    devices: tuple[str, ...]
    demand: Demand
    start: float
    end: float


def run_all(cap: Capacity, jobs: list[Job]) -> list[Ran]:
    broker: Broker[Job] = Broker(cap, jobs)
    ran: list[Ran] = []

    def work() -> None:
        while (taken := broker.next_chain()) is not None:
            job, devices = taken
            for demand in job.stages:
                with broker.stage(demand):
                    start = time.monotonic()
                    time.sleep(TICK)
                    ran.append(Ran(job.name, devices, demand, start, time.monotonic()))
            broker.release(devices)
            broker.chain_done()

    threads = [threading.Thread(target=work) for _ in range(cap.chains)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return ran


def overlapping(ran: list[Ran]) -> list[tuple[Ran, Ran]]:
    return [(a, b) for i, a in enumerate(ran) for b in ran[i + 1 :] if a.start < b.end and b.start < a.end]


def most_at_once(ran: list[Ran]) -> int:
    return max(sum(1 for r in ran if r.start <= t.start < r.end) for t in ran)


def stages(n: int, **demand: object) -> tuple[Demand, ...]:
    return tuple(Demand(**{"mem_mb": 1.0, "cores": 0, **demand}) for _ in range(n))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("pool", "needs"),
    [
        (("0", "1", "2", "3"), [1] * 8),
        (("0", "1", "2", "3", "4", "5", "6", "7"), [2, 1, 4, 1, 2, 1, 1, 2]),
        ((), [1] * 4),
    ],
    ids=["one-each", "mixed-sizes", "planned-ids"],
)
def test_running_chains_never_share_a_device(pool, needs):
    jobs = [Job(f"c{i}", tuple(str(i % 2 + k) for k in range(n)), stages(3)) for i, n in enumerate(needs)]
    ran = run_all(Capacity(mem_mb=1e6, cores=64, chains=8, gpus=pool), jobs)
    assert {r.job for r in ran} == {j.name for j in jobs}
    assert not [(a, b) for a, b in overlapping(ran) if a.job != b.job and set(a.devices) & set(b.devices)]
    if pool:
        assert all(
            set(r.devices) <= set(pool) and len(r.devices) == len(j.devices)
            for j in jobs
            for r in ran
            if r.job == j.name
        )
        assert most_at_once(ran) > 1


@pytest.mark.parametrize(
    ("mem_cap", "mem", "at_most"),
    [(100.0, 40.0, 2), (100.0, 30.0, 3), (100.0, 150.0, 1), (0.0, 1.0, 1), (100.0, None, 1)],
    ids=["two-fit", "three-fit", "too-big-runs-alone", "unknown-machine", "unknown-stage"],
)
def test_memory_bounds_how_many_run_at_once(mem_cap, mem, at_most):
    jobs = [Job(f"c{i}", (), stages(2, mem_mb=mem)) for i in range(6)]
    ran = run_all(Capacity(mem_mb=mem_cap, cores=64, chains=6), jobs)
    assert len(ran) == 12
    assert most_at_once(ran) == at_most


def test_cores_bound_cpu_stages_and_not_gpu_ones():
    jobs = [Job(f"cpu{i}", (), stages(2, cores=2)) for i in range(4)]
    jobs += [Job(f"gpu{i}", (str(i),), stages(2, cores=0)) for i in range(3)]
    ran = run_all(Capacity(mem_mb=1e6, cores=4, chains=7, gpus=("0", "1", "2")), jobs)
    for r in ran:
        at_once = [o for o in ran if o.start <= r.start < o.end]
        assert sum(o.demand.cores for o in at_once) <= 4
    assert most_at_once(ran) >= 4  # two CPU stages beside the three GPU chains


def test_a_cpu_benchmark_shares_the_cpu_with_no_stage_and_gpu_stages_go_on():
    bench = stages(1, alone=True, cores=1)
    cpu_jobs = [Job(f"cpu{i}", (), (*stages(2, cores=1), *bench, *stages(1, cores=1))) for i in range(3)]
    gpu_jobs = [Job(f"gpu{i}", (str(i),), stages(12)) for i in range(2)]
    ran = run_all(Capacity(mem_mb=1e6, cores=64, chains=5, gpus=("0", "1")), cpu_jobs + gpu_jobs)
    alone = [r for r in ran if r.demand.alone]
    assert len(alone) == 3
    pairs = [(a, b) for a, b in overlapping(ran) if a.demand.alone or b.demand.alone]
    assert not [(a, b) for a, b in pairs if a.demand.cores and b.demand.cores]  # nothing else on the CPU
    assert [(a, b) for a, b in pairs if not (a.demand.cores and b.demand.cores)]  # the GPU chains went on


def test_stages_that_share_a_key_take_turns():
    log = frozenset({"file /out/python_infer_cpu.log"})
    jobs = [Job(f"c{i}", (), (*stages(1), *stages(1, keys=log))) for i in range(4)]
    ran = run_all(Capacity(mem_mb=1e6, cores=64, chains=4), jobs)
    assert not [(a, b) for a, b in overlapping(ran) if a.demand.keys & b.demand.keys]


def test_no_more_chains_than_asked():
    jobs = [Job(f"c{i}", (), stages(2)) for i in range(6)]
    ran = run_all(Capacity(mem_mb=1e6, cores=64, chains=2), jobs)
    assert most_at_once(ran) == 2


def test_stop_releases_every_waiter():
    broker: Broker[Job] = Broker(Capacity(mem_mb=10.0, cores=1, chains=1), [Job("a", (), ()), Job("b", (), ())])
    assert broker.next_chain() is not None
    outcome: list[object] = []

    def waiter() -> None:
        outcome.append(broker.next_chain())  # blocks: one chain at a time
        try:
            with broker.stage(Demand(mem_mb=5.0, cores=1)):
                outcome.append("ran")
        except Stopped:
            outcome.append("stopped")

    with broker.stage(Demand(mem_mb=10.0, cores=1)):
        thread = threading.Thread(target=waiter)
        thread.start()
        time.sleep(TICK)
        broker.stop()
        thread.join(5)
    assert outcome == [None, "stopped"]
