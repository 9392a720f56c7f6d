"""A whole suite's night at full size, every figure beside its goal, measured in one run.

* report:   ``tipc report`` of one results folder of 12,000 stages (480 chains of a train and 24
            inference cases, as a lite zoo's chains are; one stage in 40 failed, one in 200 timed
            out) whose logs are 1 MB each, in a process of its own: CPU time (the wall time is
            printed beside it: on a machine others share it says how busy the machine is), peak
            memory (the process's maximum resident set), the first page's size, the whole report's
            size on disk, and what ``latest`` copies. The logs are hard links of one file in a
            folder per chain: the report reads each log whatever its name, and 12 GB of distinct
            logs would only measure the disk.
* records:  ``tipc report`` of a results.jsonl of ``--records`` records (78,450 by default, the
            count of the 100 MB file a night of several modes reaches), with 4 KB logs: peak memory.
* merge:    ``tipc merge`` of 32 shards of a 12,000-stage night: CPU time and peak memory.
* schedule: the run's own chain broker (``tipc.schedule.slots.Broker``) handing a night of 480
            chains to a node of 8 GPUs on a simulated clock, longest expected first as
            ``--jobs auto`` orders them (``night_of_chains`` says the spread of durations and
            why): the makespan over its lower bound, max(longest chain, GPU work / GPUs), and the
            chains that shared a device; then the ``--shard K/8`` split of the same chains: the
            longest shard over the larger of the mean shard and the longest chain.
* collect:  ``pytest tipc --config <suite>/test_tipc/configs --collect-only`` of suites' checkouts
            (``--suite``, repeated: every zoo in one session; left out without one): CPU per 10,000 items
            and peak memory; for scale, the CPU pytest itself spends collecting as many items of one
            parametrized test.

Exit 1 when a goal is missed; ``--only PART`` (repeated) measures some parts. ``--scale F`` measures a
night F times the size (``--scale 0.25`` on a CI machine): the stage and record counts, the CPU goals
(beyond a process's start, ``START``) and the report's size on disk are scaled by F, the memory goals and
the first page's are not (they do not grow with the night).
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "benchmarks"))  # matrix_speed: the matrix page's configs

from tests.support.night import CASES, MODE, results_folder  # noqa: E402
from tipc.schedule.shard import Unit, partition  # noqa: E402
from tipc.schedule.slots import Broker, Capacity  # noqa: E402

MB = 1 << 20
PARTS = ("report", "records", "merge", "overview", "schedule", "collect")


@dataclass(frozen=True)
class Figure:
    name: str
    value: float
    goal: float | None  # None: printed for scale, held to nothing
    unit: str

    @property
    def ok(self) -> bool:
        return self.goal is None or self.value <= self.goal

    def line(self) -> str:
        if self.goal is None:
            return f"{self.name:<56} {self.value:>10.2f} {self.unit:<3} (for scale)"
        ratio = self.value / self.goal if self.goal else 0.0
        mark = "ok" if self.ok else "MISSED"
        return f"{self.name:<56} {self.value:>10.2f} {self.unit:<3} goal <= {self.goal:<8g} {ratio:>6.2f}  {mark}"


START = 1.0  # a tipc process's start (its imports, its templates): CPU seconds that do not grow with the night


def cpu_goal(full: float, scale: float) -> float:
    """The CPU goal of a night ``scale`` times the full size: the part that grows with it, scaled."""
    return full if scale == 1.0 else START + (full - START) * scale


def measured(argv: Sequence[str]) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak resident MB) of one command in a process of its own. The CPU
    seconds are the figure held to a goal: on a machine others share, the wall time says how busy it is."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):  # 1: the night failed, as it should
        raise SystemExit(f"{' '.join(argv)} failed:\n{err.decode(errors='replace')}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def tree_bytes(folder: Path) -> int:
    """Bytes of the files under ``folder``, links not followed (``latest`` is a link)."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def tipc(*args: str) -> list[str]:
    return [sys.executable, "-m", "tipc", *args]


def report_figures(tmp: Path, stages: int, scale: float = 1.0) -> Iterator[Figure]:
    results = tmp / "results"
    results_folder(results, stages)
    out = tmp / "reports"
    wall, seconds, peak = measured(tipc("report", str(results), "--out", str(out), "--no-history"))
    mode_dir = out / "zoo" / MODE
    first = mode_dir / "latest" / "index.html"
    yield Figure(f"report of {stages} stages: render (CPU; wall {wall:.0f} s)", seconds, cpu_goal(15.0, scale), "s")
    yield Figure(f"report of {stages} stages: peak memory", peak, 300.0, "MB")
    yield Figure("report: first page", first.stat().st_size / MB, 5.0, "MB")
    yield Figure("report: whole report on disk", tree_bytes(out) / MB, 100.0 * scale, "MB")
    latest = mode_dir / "latest"
    yield Figure("report: latest/ copies (0: a link)", 0.0 if latest.is_symlink() else tree_bytes(latest) / MB, 0, "MB")


def records_figures(tmp: Path, count: int) -> Iterator[Figure]:
    results = tmp / "many"
    results_folder(results, count, log_bytes=4096)  # memory is the figure here: small logs read fast
    size = (results / "results.jsonl").stat().st_size / MB
    _, _, peak = measured(tipc("report", str(results), "--out", str(tmp / "many-reports"), "--no-history"))
    yield Figure(f"report of {count} records ({size:.0f} MB jsonl): peak", peak, 300.0, "MB")


def merge_figures(tmp: Path, stages: int, shards: int, scale: float = 1.0) -> Iterator[Figure]:
    mode_dir = tmp / "night" / "zoo" / MODE
    each = stages // shards
    for k in range(1, shards + 1):
        results_folder(mode_dir / "shards" / "g1" / f"shard{k}", each, f"{k}/{shards}", (k - 1) * each)
        part = mode_dir / "shards" / "g1" / f"shard{k}"
        info = json.loads((part / "run.json").read_text())
        info["run_group"] = "g1"
        (part / "run.json").write_text(json.dumps(info))
        (part / "results_python.log").write_text("Run successfully with command - zoo!\n" * each)
    wall, seconds, peak = measured(tipc("merge", str(mode_dir)))
    yield Figure(
        f"merge of {shards} shards ({stages} stages): CPU (wall {wall:.0f} s)", seconds, cpu_goal(10.0, scale), "s"
    )
    yield Figure(f"merge of {shards} shards: peak memory", peak, 300.0, "MB")


@dataclass(frozen=True)
class SimChain:
    """A chain as the broker sees it: the devices it names, and how long it takes."""

    devices: tuple[str, ...]
    seconds: float  # what it takes tonight
    expected: float  # what the history says it takes (the kind's mean when never seen)


def night_of_chains(count: int, seed: int = 7) -> list[SimChain]:
    """A lite zoo's night: chain minutes lognormal (median 4 min, sigma 1: most chains are a short
    train and a few predictor runs, a few big models run an hour), one chain in ten on 2 GPUs, and
    tonight's time within 15 % of the recorded one; one chain in 20 was never seen (its expected
    time is the mean of those seen)."""
    rng = random.Random(seed)
    chains = []
    for n in range(count):
        seconds = 240.0 * rng.lognormvariate(0.0, 1.0)
        devices = ("0", "1") if n % 10 == 9 else ("0",)
        chains.append((devices, seconds, seconds * rng.uniform(0.85, 1.15), n % 20 == 19))
    seen = [e for _, _, e, new in chains if not new]
    mean = sum(seen) / len(seen)
    return [SimChain(d, s, mean if new else e) for d, s, e, new in chains]


def simulated_night(chains: Sequence[SimChain], gpus: int) -> tuple[float, int]:
    """(makespan, device clashes) of the run's broker handing ``chains`` to a node of ``gpus`` GPUs,
    longest expected first as ``--jobs auto`` orders them, on a simulated clock."""
    pool = tuple(str(g) for g in range(gpus))
    broker = Broker(Capacity(mem_mb=1e9, cores=64, chains=gpus, gpus=pool), sorted(chains, key=lambda c: -c.expected))
    pending, running, clock, clashes = list(chains), [], 0.0, 0
    held: set[str] = set()
    while pending or running:
        while pending and gpus - len(held) >= min(len(c.devices) for c in pending):
            job, devices = broker.next_chain()  # type: ignore[misc]
            pending.remove(job)
            clashes += len(held & set(devices))
            held |= set(devices)
            heapq.heappush(running, (clock + job.seconds, id(job), devices))
        clock, _, devices = heapq.heappop(running)
        held -= set(devices)
        broker.release(devices)
        broker.chain_done()
    return clock, clashes


def schedule_figures(chains: int, gpus: int, nodes: int) -> Iterator[Figure]:
    night = night_of_chains(chains)
    longest = max(c.seconds for c in night)
    work = sum(c.seconds * len(c.devices) for c in night)
    makespan, clashes = simulated_night(night, gpus)
    bound = max(longest, work / gpus)
    yield Figure(f"--jobs auto, {chains} chains on {gpus} GPUs: makespan / bound", makespan / bound, 1.10, "")
    yield Figure("--jobs auto: chains sharing a device", clashes, 0, "")
    units = [Unit(f"c{n}", c.expected) for n, c in enumerate(night)]
    took = {f"c{n}": c.seconds for n, c in enumerate(night)}
    loads = [sum(took[k] for k in part) for part in partition(units, nodes)]
    mean = sum(loads) / nodes
    yield Figure(
        f"--shard K/{nodes}: longest shard / max(mean, longest chain)", max(loads) / max(mean, longest), 1.10, ""
    )


def collected(argv: Sequence[str], cwd: Path, runs: int = 3) -> tuple[list[str], float, float]:
    """(node ids, CPU seconds, peak resident MB) of ``pytest ... --collect-only -q`` in a process of its own:
    the least CPU of ``runs`` runs (on a shared machine the others' load only adds), after one that writes the
    bytecode caches any machine has after its first run."""
    argv = [sys.executable, "-m", "pytest", *argv, "--collect-only", "-q", "-p", "no:cacheprovider"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=False)
    cpu, peak, out = float("inf"), 0.0, ""
    for _ in range(runs):
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert proc.stdout is not None
        out = proc.stdout.read().decode(errors="replace")
        _, _, usage = os.wait4(proc.pid, 0)
        cpu, peak = min(cpu, usage.ru_utime + usage.ru_stime), max(peak, usage.ru_maxrss / 1024)
    found = re.search(r"(\d+) tests? collected", out)
    if found is None:
        raise SystemExit(f"{' '.join(argv)} printed no count:\n{out[-2000:]}")
    ids = [line for line in out.splitlines() if "::" in line]
    return ids, cpu, peak


# pytest's own cost of a collection: the same tree of nodes (configs, chains, stages) made of plain items.
SAME_NODES = """
import pytest


class Leaf(pytest.Item):
    def runtest(self):
        pass


class Branch(pytest.Collector):
    def __init__(self, *, below, **kw):
        super().__init__(**kw)
        self.below = below

    def collect(self):
        for name, below in self.below.items():
            nodeid = f"{self.nodeid}::{name}" if isinstance(self, Branch) else name
            if below:
                yield Branch.from_parent(self, name=name, nodeid=nodeid, below=below)
            else:
                yield Leaf.from_parent(self, name=name, nodeid=nodeid)


class Tree(pytest.File):
    collect = Branch.collect

    @property
    def below(self):
        tree = {}
        for line in self.path.read_text().splitlines():
            node = tree
            for part in line.split("::"):
                node = node.setdefault(part, {})
        return tree


def pytest_collect_file(parent, file_path):
    if file_path.name == "nodes.tree":
        return Tree.from_parent(parent, path=file_path)
"""


def zoo_copy(suite: Path, into: Path) -> Path:
    """The suite's ``test_tipc/`` (``tests/test_tipc/`` for PaddleSpeech) copied into a checkout of its own
    under ``into`` with its dialect's marker folder, so that one session detects each suite's dialect as in a
    real checkout (a snapshot of ``test_tipc/`` alone has no marker); its ``configs/`` folder."""
    from tipc.suites.registry import dialects

    dialect = next((d for d in dialects() if d.name.lower() == suite.name.lower()), None)
    if dialect is None:
        raise SystemExit(f"--suite {suite}: name the folder as its suite ({', '.join(d.name for d in dialects())})")
    found = next((p for p in (suite / "test_tipc", suite / "tests" / "test_tipc") if (p / "configs").is_dir()), None)
    if found is None:
        raise SystemExit(f"--suite {suite}: no test_tipc/configs in it")
    copy = into / suite.name / found.relative_to(suite)
    shutil.copytree(found, copy, symlinks=True)
    (copy.parent / dialect.markers[0]).mkdir(parents=True)
    return copy / "configs"


def collection_figures(suites: Sequence[Path]) -> Iterator[Figure]:
    """``pytest tipc --collect-only`` of the suites' whole zoos in one session and, for scale, pytest's own
    collection of the same nodes made of plain items: what pytest spends whichever plugin makes them, and so
    what is tipc's."""
    with tempfile.TemporaryDirectory() as tmp:
        argv = ["tipc", "--mode", MODE]
        for suite in suites:
            argv += ["--config", str(zoo_copy(suite, Path(tmp)))]
        ids, cpu, peak = collected(argv, Path(tmp))
        floor = Path(tmp) / "floor"
        floor.mkdir()
        (floor / "conftest.py").write_text(SAME_NODES)
        (floor / "nodes.tree").write_text("\n".join(ids) + "\n")
        same, floor_cpu, _ = collected([], floor)
    if len(same) != len(ids):
        raise SystemExit(f"pytest's own collection made {len(same)} nodes of tipc's {len(ids)}")
    names = suites[0].name if len(suites) == 1 else f"{len(suites)} suites"
    per = 10_000 / len(ids)
    yield Figure(f"collect {len(ids)} items of {names}: CPU per 10,000", cpu * per, 2.0, "s")
    yield Figure("  of which pytest's own for the same nodes (plain items)", floor_cpu * per, None, "s")
    yield Figure("  of which tipc's (its imports, reading, planning)", (cpu - floor_cpu) * per, None, "s")
    yield Figure(f"collect {names}: peak memory", peak, 300.0, "MB")


def overview_figures(tmp: Path, stages: int, scale: float = 1.0, models: int = 100, modes: int = 4) -> Iterator[Figure]:
    """The night's matrix page over ``models`` models x ``modes`` modes, ``stages`` stages in all, with
    30 nights of history (``benchmarks/matrix_speed.py``'s configs, each given the night's share)."""
    from matrix_speed import NIGHTS, config

    from tipc.history.matrix import remember
    from tipc.history.store import HISTORY_FILE
    from tipc.report.overview import build_page
    from tipc.report.overview_write import MATRIX, write_overview

    per = max(1, stages // (models * modes))
    outcomes = []
    for i in range(models):
        one = config(tmp, i)
        records = (one.records * (per // max(1, len(one.records)) + 1))[:per] if one.records else ()
        outcomes += [replace(one, mode=f"{one.mode}_{m}", records=records) for m in range(modes)]
    rows = build_page("", outcomes, tmp, {}).rows
    store = tmp / HISTORY_FILE
    for night in range(NIGHTS):
        remember(store, tmp / MATRIX, f"202611{night + 1:02d}T013000Z-00000000", rows, print)
    tracemalloc.start()
    start = time.process_time()
    index = write_overview(outcomes, tmp, "20261201T013000Z-00000000", store=store)
    seconds = time.process_time() - start
    peak = tracemalloc.get_traced_memory()[1] / MB
    tracemalloc.stop()
    yield Figure(f"overview of {models} models x {modes} modes: render (CPU)", seconds, cpu_goal(15.0, scale), "s")
    yield Figure("overview: peak memory (Python's allocations)", peak, 300.0, "MB")
    yield Figure("overview: first page", index.stat().st_size / MB, 5.0, "MB")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stages", type=int, default=12_000)
    parser.add_argument("--records", type=int, default=78_450, help="records of the large results.jsonl")
    parser.add_argument("--only", choices=PARTS, action="append")
    parser.add_argument("--scale", type=float, default=1.0, help="a night this many times the size (goals scaled)")
    parser.add_argument(
        "--suite",
        type=Path,
        action="append",
        help="a suite's checkout or test_tipc snapshot, named as the suite (PaddleClas/): its test_tipc/configs is "
        "collected; repeated, the suites' zoos are collected in one session",
    )
    args = parser.parse_args(argv)
    only = set(args.only or PARTS)
    scale = args.scale
    stages, records = round(args.stages * scale), round(args.records * scale)
    if scale != 1.0:
        print(f"a night {scale:g} times the full size: {stages} stages, {records} records; CPU and disk goals scaled")
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp:
        if "report" in only:
            figures += report_figures(Path(tmp), stages, scale)
        if "records" in only:
            figures += records_figures(Path(tmp), records)
        if "merge" in only:
            figures += merge_figures(Path(tmp), stages, 32, scale)
        if "overview" in only:
            figures += overview_figures(Path(tmp) / "overview", stages, scale)
    if "schedule" in only:
        figures += schedule_figures(stages // (CASES + 1), 8, 8)
    if "collect" in only:
        if not args.suite:
            print("collection: not measured (give --suite CHECKOUT, a suite's checkout)")
        else:
            figures += collection_figures(args.suite)
    print(f"night_size on {os.cpu_count()} CPU(s); value, goal, value/goal:")
    for f in figures:
        print(f.line())
    missed = [f.name for f in figures if not f.ok]
    print("every goal met" if not missed else f"missed: {', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
