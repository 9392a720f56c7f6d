"""Who runs a session's stages when they may run side by side.

* ``Scheduler`` (``--jobs``, under ``tipc run`` and ``pytest tipc`` without xdist): worker threads
  take whole chains from the broker, longest first, each pinned to the GPUs it was given (until
  its last GPU stage), and run their stages one after the other, each admitted by the broker; the
  front asks for each stage's record in its own order and waits for it (``run``). ``stop`` ends
  it all: nothing new starts, running stages are interrupted (recorded as such), the threads are
  joined.
* ``SlotRunner`` (a pytest-xdist worker): xdist hands this worker whole chains (``--dist
  loadscope``); it pins them to its slot of the GPU list (slot = worker index) and keeps CPU
  benchmarks alone on the CPU across all workers (``hostlock``).

Both call ``PlanRun.run_stage``: only ``tipc.run`` starts processes.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as StillRunning  # not the builtin one before 3.11
from pathlib import Path
from typing import Protocol

from tipc.history.durations import read_history
from tipc.plan.model import Stage
from tipc.results.records import StageRecord
from tipc.run.plan_run import PlanRun
from tipc.schedule import hostlock
from tipc.schedule.budget import available_mb, host_cores
from tipc.schedule.demand import chain_devices, is_benchmark, on_cpu
from tipc.schedule.devices import worker_slot
from tipc.schedule.jobs import ChainJob, capacity, chain_jobs, refusal
from tipc.schedule.pin import pin
from tipc.schedule.policy import Schedule
from tipc.schedule.slots import Broker, Capacity

WAKE_S = 0.2  # how soon the front hears a Ctrl-C while it waits for a stage


class Runner(Protocol):
    def run(self, run: PlanRun, stage: Stage) -> StageRecord: ...

    def stop(self) -> None: ...


class Scheduler:
    def __init__(self, jobs: Sequence[ChainJob], cap: Capacity) -> None:
        self._futures: dict[tuple[int, str], Future[StageRecord]] = {
            (id(job.run), s.stage.id): Future() for job in jobs for s in job.stages
        }
        runnable = []
        for job in jobs:
            reason = refusal(job, cap)
            if not reason:
                runnable.append(job)
                continue
            for s in job.stages:
                self._futures[id(job.run), s.stage.id].set_result(job.run.block(s.stage, reason))
        self._runs = list({id(job.run): job.run for job in jobs}.values())
        self._broker = Broker(cap, runnable)
        self._workers = min(cap.chains, len(runnable))
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        """Its worker threads start taking chains. Apart from the making, so that the session holds the
        scheduler before any stage starts: a Ctrl-C at any moment after finds it, and stops and records
        what runs (a thread the session could not stop would die with the process, its record unwritten)."""
        for n in range(self._workers):
            thread = threading.Thread(target=self._work, name=f"tipc-chains-{n}", daemon=True)
            self._threads.append(thread)
            thread.start()

    def run(self, run: PlanRun, stage: Stage) -> StageRecord:
        """The stage's record once the scheduler has run it; a stage it was not given runs now."""
        future = self._futures.get((id(run), stage.id))
        if future is None:
            return run.run_stage(stage)
        # Waited for in short steps: a Ctrl-C that the kernel hands to a worker thread only flags it
        # for the main thread, which runs Python's handler when it next wakes; a wait without a
        # timeout would keep it asleep, the Ctrl-C unheard, until this stage ended on its own.
        while True:
            with contextlib.suppress(StillRunning):
                return future.result(timeout=WAKE_S)

    def stop(self) -> None:
        self._broker.stop()
        for run in self._runs:
            run.executor.interrupt()
        for thread in self._threads:
            if thread.ident is not None:  # started (a Ctrl-C may come between the two)
                thread.join()

    def _work(self) -> None:
        while (taken := self._broker.next_chain()) is not None:
            job, devices = taken
            try:
                self._run_chain(job, devices)
            finally:
                self._broker.chain_done()

    def _run_chain(self, job: ChainJob, devices: tuple[str, ...]) -> None:
        """The chain's stages in order. Its GPUs go back after its last GPU stage: CPU inference
        cases (benchmarks waiting for a quiet CPU, above all) must not keep a GPU idle."""
        last_gpu = max((n for n, s in enumerate(job.stages) if not on_cpu(s.stage)), default=-1)
        held = devices
        try:
            for n, step in enumerate(job.stages):
                if held and n > last_gpu:
                    self._broker.release(held)
                    held = ()
                try:
                    with self._broker.stage(step.demand):
                        record = job.run.run_stage(pin(step.stage, job.devices, devices))
                except BaseException as exc:  # noqa: BLE001 - raised to the front where it waits for these stages
                    for rest in job.stages[n:]:
                        self._futures[id(job.run), rest.stage.id].set_exception(exc)
                    return
                self._futures[id(job.run), step.stage.id].set_result(record)
        finally:
            if held:
                self._broker.release(held)


def make_scheduler(
    selected: Sequence[tuple[PlanRun, Stage]], schedule: Schedule, warn: Callable[[str], None]
) -> Scheduler:
    """The scheduler of the selected stages, to run them side by side (once started) within what this machine
    and ``schedule`` allow, guided by what earlier runs in their results folders measured."""
    store = next((run.settings.history for run, _ in selected), None)
    history = read_history(dict.fromkeys(run.results.path for run, _ in selected), warn, store)
    cap = capacity(schedule, available_mb(), host_cores())
    return Scheduler(chain_jobs(selected, history, schedule, cap), cap)


class SlotRunner:
    """``slot``: this worker's GPUs; None when no GPU list is known (chains keep their planned ids)."""

    def __init__(self, slot: tuple[str, ...] | None, lock: Path, worker: str) -> None:
        self.slot = slot
        self.lock = lock
        self.worker = worker

    @classmethod
    def for_worker(cls, schedule: Schedule, index: int, workers: int, run_id: str) -> SlotRunner:
        slot = worker_slot(schedule.gpus, index, workers) if schedule.gpus else None
        return cls(slot, hostlock.lock_path(run_id), f"gw{index}")

    def run(self, run: PlanRun, stage: Stage) -> StageRecord:
        chain = next(c for c in run.plan.chains if c.id == stage.chain)
        planned = chain_devices(chain)
        if self.slot is not None and len(planned) > len(self.slot):
            return run.block(
                stage,
                f"blocked: chain {chain.id} needs {len(planned)} GPU(s) and xdist worker {self.worker} holds "
                f"{len(self.slot)} ({','.join(self.slot) or 'none'}): run fewer workers (-n), or --jobs without -n",
            )
        pinned = pin(stage, planned, self.slot[: len(planned)]) if self.slot is not None else stage
        if not on_cpu(stage):  # its GPUs are this worker's alone
            return run.run_stage(pinned)
        with hostlock.hold(self.lock, alone=is_benchmark(stage)):
            return run.run_stage(pinned)

    def stop(self) -> None:
        """Nothing runs in the background here: xdist ends its own workers."""
