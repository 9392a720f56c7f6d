"""``--shard K/N``: the matrix of every ``--config``'s chains split into N balanced parts; run the K-th.

A chain is never split: its stages pass files to each other. Parts are balanced by the chains'
recorded durations (``history.Durations``: stage counts when nothing is recorded): two splits are
made — longest chain first onto the lightest part, and Karmarkar–Karp's differencing (which does
better where durations are alike) — each improved by moves and swaps out of the heaviest part while
they shrink it, and the one with the lighter heaviest part wins.

Every shard of one night (one run group, ``tipc.cluster.group``) must run under the same split, or
chains would run twice or never. The split depends only on the configs and on the history in each
config's own results folder (``<mode>/``), which shards never write — each writes
``<mode>/shards/<group>/shard<K>/``. The first shard of a group to split records the split in
``<mode>/shards/<group>/split.json`` (of the first config's folder); every later shard of the group
reads it rather than splitting again, so a shard re-run days later (``--run-group`` of that night)
runs the chains it had that night, whatever the history says now. The split's fingerprint goes
into every shard's ``run.json`` (``partition``), and ``tipc merge`` refuses shards whose
fingerprints differ. Stages a plan drops outside any chain are recorded by shard 1.
"""

from __future__ import annotations

import contextlib
import hashlib
import heapq
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from tipc.errors import ConfigError, SettingsError
from tipc.history.durations import Durations, read_history
from tipc.history.keys import config_key
from tipc.plan.model import Plan
from tipc.results.folder import group_folder, shard_folder
from tipc.schedule.policy import Shard

Parts = tuple[tuple[str, ...], ...]
ROUNDS = 10_000  # each round lowers the heaviest part; the bound only caps the plan's cost


@dataclass(frozen=True, slots=True)
class Unit:
    key: str  # "<config key>::<chain id>"
    seconds: float


def unit_key(config: str, chain: str) -> str:
    return f"{config_key(config)}::{chain}"


def _improve(parts: list[list[Unit]], loads: list[float]) -> None:
    """Moves and swaps out of the heaviest part, each one strictly lowering the larger of the two
    parts it touches, until none does. Deterministic: ties go to the first candidate found."""
    for _ in range(ROUNDS):
        hi = max(range(len(parts)), key=lambda i: (loads[i], -i))
        best: tuple[float, int, int, int | None] | None = None  # (new larger load, lo, i, j)
        for lo in range(len(parts)):
            if lo == hi:
                continue
            for i, u in enumerate(parts[hi]):
                for j, v in [(None, None), *enumerate(parts[lo])]:
                    delta = u.seconds - (v.seconds if v is not None else 0.0)
                    if delta <= 0:
                        continue
                    worse = max(loads[hi] - delta, loads[lo] + delta)
                    if worse < loads[hi] - 1e-9 and (best is None or worse < best[0]):
                        best = (worse, lo, i, j)
        if best is None:
            return
        _, lo, i, j = best
        u = parts[hi].pop(i)
        parts[lo].append(u)
        loads[hi] -= u.seconds
        loads[lo] += u.seconds
        if j is not None:
            v = parts[lo].pop(j)
            parts[hi].append(v)
            loads[hi] += v.seconds
            loads[lo] -= v.seconds


def _longest_first(units: Sequence[Unit], count: int) -> list[list[Unit]]:
    parts: list[list[Unit]] = [[] for _ in range(count)]
    loads = [0.0] * count
    for unit in units:
        lightest = min(range(count), key=lambda i: (loads[i], i))
        parts[lightest].append(unit)
        loads[lightest] += unit.seconds
    return parts


def _differencing(units: Sequence[Unit], count: int) -> list[list[Unit]]:
    """Multiway Karmarkar–Karp: repeatedly join the two partial splits whose parts differ most,
    the heaviest part of one with the lightest of the other."""
    heap: list[tuple[float, int, list[tuple[float, list[Unit]]]]] = []
    for n, unit in enumerate(units):
        heapq.heappush(heap, (-unit.seconds, n, [(unit.seconds, [unit]), *([(0.0, [])] * (count - 1))]))
    tick = len(units)
    while len(heap) > 1:
        _, _, a = heapq.heappop(heap)
        _, _, b = heapq.heappop(heap)
        joined = sorted(((x[0] + y[0], x[1] + y[1]) for x, y in zip(a, reversed(b), strict=True)), key=lambda p: -p[0])
        heapq.heappush(heap, (-(joined[0][0] - joined[-1][0]), tick, joined))
        tick += 1
    return [list(members) for _, members in heap[0][2]] if heap else [[] for _ in range(count)]


def partition(units: Sequence[Unit], count: int) -> Parts:
    """``count`` parts of the units' keys, each part in the units' order."""
    ordered = sorted(units, key=lambda u: (-u.seconds, u.key))
    candidates = []
    for n, split in enumerate((_longest_first, _differencing)):
        parts = split(ordered, count)
        loads = [sum(u.seconds for u in part) for part in parts]
        _improve(parts, loads)
        candidates.append((max(loads), n, parts))
    _, _, best = min(candidates, key=lambda c: c[:2])
    order = {u.key: n for n, u in enumerate(units)}
    return tuple(tuple(sorted((u.key for u in part), key=order.__getitem__)) for part in best)


def fingerprint(parts: Parts) -> str:
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


def units_of(plans: Sequence[Plan], durations: Durations) -> list[Unit]:
    return [
        Unit(unit_key(p.config_path, c.id), sum(durations.stage(p.config_path, s) for s in c.stages))
        for p in plans
        for c in p.chains
    ]


def results_folder(plan: Plan) -> Path:
    """Where a whole (unsharded) run of ``plan`` records: the history every shard reads."""
    return (Path(plan.cwd) / plan.output_dir).resolve()


SPLIT_FILE = "split.json"


def read_split(path: Path) -> Parts | None:
    """A group's recorded split; None when there is none yet. ``SettingsError`` for one that does
    not read (a hand edit, another tool): the shard must not guess its chains."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise SettingsError(f"{path}: the run group's recorded split does not read ({exc})") from None
    parts = data.get("parts") if isinstance(data, dict) else None
    if not isinstance(parts, list) or not all(
        isinstance(p, list) and all(isinstance(k, str) for k in p) for p in parts
    ):
        raise SettingsError(f'{path}: expected {{"parts": [[chain key, ...], ...]}}, the split a shard recorded')
    return tuple(tuple(p) for p in parts)


def record_split(path: Path, parts: Parts) -> Parts:
    """Record ``parts`` as the group's split unless a shard of the group did first; the split that
    won. A hard link publishes the file whole and only if absent (also on NFS)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"parts": parts, "fingerprint": fingerprint(parts)}, indent=1) + "\n")
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        tmp.unlink()
    return read_split(path) or parts


class Sharding:
    """The split of the whole matrix, computed once from every config's plan (``build``), or the
    one its run group recorded; a config that cannot be planned is left out of it (the session
    reports it where it always does)."""

    def __init__(
        self,
        shard: Shard,
        group: str,
        configs: Sequence[Path],
        build: Callable[[Path], Plan],
        store: Path | None = None,  # the history store the setting names (--history)
    ) -> None:
        self.shard = shard
        self._store = store
        self.group = group
        self._configs = configs
        self._build = build
        self._parts: Parts | None = None
        self._seconds: dict[str, float] = {}
        self._measured = False

    def _split(self) -> Parts:
        if self._parts is None:
            plans = []
            for path in self._configs:
                with contextlib.suppress(ConfigError):
                    plans.append(self._build(path))
            history = read_history(dict.fromkeys(results_folder(p) for p in plans), store=self._store)
            units = units_of(plans, Durations.of(history))
            self._seconds = {u.key: u.seconds for u in units}
            self._measured = bool(history)
            self._parts = partition(units, self.shard.count)
            if plans:
                recorded = group_folder(results_folder(plans[0]), self.group) / SPLIT_FILE
                self._parts = record_split(recorded, self._parts)
                if len(self._parts) != self.shard.count:
                    raise SettingsError(
                        f"--shard {self.shard.label}: run group {self.group} was split into "
                        f"{len(self._parts)} parts ({recorded}); re-run its shards as K/{len(self._parts)}"
                    )
        return self._parts

    def empty_note(self) -> str:
        """What a shard whose part has no chain says ("" for one that has): more parts than chains
        is no failure (the run exits 0), but worth a line."""
        if self._parts is None or self._parts[self.shard.index - 1]:
            return ""
        total = sum(len(p) for p in self._parts)
        return f"tipc: shard {self.shard.label} has no chains: the matrix's {total} chain(s) went to the other parts"

    def folder(self, plan: Plan) -> Path:
        """This shard's results folder for ``plan``."""
        return shard_folder(results_folder(plan), self.group, self.shard.index)

    def restrict(self, plan: Plan) -> Plan:
        """This shard's part of ``plan``: its chains, their dropped cases, and (shard 1) the
        cases dropped outside any chain; the plan notes say which part of what."""
        parts = self._split()
        mine = set(parts[self.shard.index - 1])
        chains = tuple(c for c in plan.chains if unit_key(plan.config_path, c.id) in mine)
        ids = {c.id for c in plan.chains}
        kept = {c.id for c in chains}
        skipped = tuple(
            s
            for s in plan.skipped
            if s.id.rpartition("::")[0] in kept or (s.id.rpartition("::")[0] not in ids and self.shard.index == 1)
        )
        loads = seconds_by_part(parts, self._seconds)
        unit, how = ("s", "recorded durations") if self._measured else ("stages", "stage counts: nothing recorded yet")
        note = (
            f"shard {self.shard.label}: {len(chains)} of this config's {len(plan.chains)} chains; this part "
            f"{len(mine)} of {sum(len(p) for p in parts)} chains, {loads[self.shard.index - 1]:.0f} of "
            f"{sum(loads):.0f} {unit} (parts {min(loads):.0f}–{max(loads):.0f} {unit}, balanced by {how})"
        )
        return replace(
            plan,
            chains=chains,
            skipped=skipped,
            notes=(*plan.notes, note),
            shard=self.shard.label,
            partition=fingerprint(parts),
            run_group=self.group,
        )


def seconds_by_part(parts: Parts, seconds: Mapping[str, float]) -> list[float]:
    """A recorded split may name chains the configs no longer have: they weigh nothing."""
    return [sum(seconds.get(k, 0.0) for k in part) for part in parts]
