"""The broker: one lock over what concurrent chains share in this process.

A chain takes its GPUs and a chain slot before its first stage and gives them back after its
last; each stage takes memory, cores and its keys while it runs. Chains are taken in the order
given (longest first), skipping one that does not fit now for the next that does; stages are
admitted in the order they ask, a stage that does not fit letting later ones pass. A stage that
must run alone (a CPU benchmark) runs with no other stage computing on the CPU (a stage taking
cores): stages on GPUs go on beside it. While it waits for the CPU to be quiet, no CPU stage
that asked after it starts (else a stream of small stages could keep it waiting to the end).
A stage that asks for more than the machine has runs when nothing else does.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from tipc.schedule.demand import Demand


class Stopped(Exception):
    """The broker was stopped: the run is ending; nothing more starts."""


@dataclass(frozen=True, slots=True)
class Capacity:
    mem_mb: float  # what all running stages' memory may add up to
    cores: int
    chains: int  # chains at once
    gpus: tuple[str, ...] = ()  # the pool chains are pinned to; () = each chain takes the ids it names


class NeedsDevices(Protocol):
    @property
    def devices(self) -> tuple[str, ...]: ...


Job = TypeVar("Job", bound=NeedsDevices)


@dataclass(slots=True)
class _Ticket:
    demand: Demand
    granted: bool = False


@dataclass(slots=True)
class _Use:
    running: int = 0
    mem_mb: float = 0.0
    cores: int = 0
    alone: bool = False
    keys: set[str] = field(default_factory=set)


class Broker(Generic[Job]):
    def __init__(self, capacity: Capacity, chains: Sequence[Job]) -> None:
        self.capacity = capacity
        self._pending = list(chains)
        self._cond = threading.Condition()
        self._busy: set[str] = set()  # GPU ids held by running chains
        self._chains = 0
        self._use = _Use()
        self._waiting: list[_Ticket] = []
        self._stopped = False

    # --- chains ---

    def _devices_for(self, job: Job) -> tuple[str, ...] | None:
        if not self.capacity.gpus:
            return job.devices if self._busy.isdisjoint(job.devices) else None
        free = [g for g in self.capacity.gpus if g not in self._busy]
        return tuple(free[: len(job.devices)]) if len(free) >= len(job.devices) else None

    def next_chain(self) -> tuple[Job, tuple[str, ...]] | None:
        """The first pending chain that fits, with the GPUs it now holds (the pool's ids, or the
        ones it names); blocks while none fits; None when none is left or the broker stopped."""
        with self._cond:
            while not self._stopped and self._pending:
                if self._chains < self.capacity.chains:
                    for i, job in enumerate(self._pending):
                        devices = self._devices_for(job)
                        if devices is not None:
                            del self._pending[i]
                            self._busy.update(devices)
                            self._chains += 1
                            return job, devices
                self._cond.wait()
            return None

    def release(self, devices: tuple[str, ...]) -> None:
        """GPUs a chain no longer needs (its last GPU stage is over), for the next chain."""
        with self._cond:
            self._busy.difference_update(devices)
            self._cond.notify_all()

    def chain_done(self) -> None:
        with self._cond:
            self._chains -= 1
            self._cond.notify_all()

    # --- stages ---

    def _fits(self, d: Demand) -> bool:
        use = self._use
        if not use.keys.isdisjoint(d.keys):
            return False
        if use.running == 0:
            return True
        if (use.alone and d.cores) or (d.alone and use.cores):
            return False
        mem = self.capacity.mem_mb if d.mem_mb is None else d.mem_mb
        return use.mem_mb + mem <= self.capacity.mem_mb and use.cores + d.cores <= self.capacity.cores

    def _grant(self) -> None:
        quiet = False  # a stage waits to run alone: CPU stages that asked after it wait too
        for ticket in self._waiting:
            if ticket.granted or (quiet and ticket.demand.cores):
                continue
            if self._fits(ticket.demand):
                d, use = ticket.demand, self._use
                ticket.granted = True
                use.running += 1
                use.mem_mb += self.capacity.mem_mb if d.mem_mb is None else d.mem_mb
                use.cores += d.cores
                use.alone = use.alone or d.alone
                use.keys |= d.keys
            elif ticket.demand.alone:
                quiet = True

    @contextlib.contextmanager
    def stage(self, demand: Demand) -> Iterator[None]:
        """Hold the stage's share of the machine while the body runs; ``Stopped`` if the broker
        stops first."""
        ticket = _Ticket(demand)
        with self._cond:
            self._waiting.append(ticket)
            self._grant()
            while not ticket.granted and not self._stopped:
                self._cond.wait()
            self._waiting.remove(ticket)
            if not ticket.granted:
                raise Stopped
        try:
            yield
        finally:
            with self._cond:
                use = self._use
                use.running -= 1
                use.mem_mb -= self.capacity.mem_mb if demand.mem_mb is None else demand.mem_mb
                use.cores -= demand.cores
                use.alone = use.alone and not demand.alone
                use.keys -= demand.keys
                self._grant()
                self._cond.notify_all()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
