"""A whole suite's night at full size, every figure beside its goal, measured in one run.

* report:  ``tipc report`` of one results folder of 12,000 stages (480 chains of a train and 24
           inference cases, as a lite zoo's chains are) whose logs are 1 MB each, in a process of
           its own: wall time, peak memory (the process's maximum resident set), the first page's
           size and the whole report's size on disk. The logs are hard links of one file: the
           report reads each log's end, whatever its name, and 12 GB of distinct logs would only
           measure the disk.
* records: ``tipc report`` of a results.jsonl of ``--records`` records (78,450 make the 100 MB a
           year-long ``-k`` history of one folder reaches; the default is scaled down for CI's 2
           cores): peak memory, against the 12,000-stage figure.
* merge:   ``tipc merge`` of 32 shards of a 12,000-stage night: wall time and peak memory.

Exit 1 when a goal is missed. ``--quick`` scales every size down by 10 (a smoke run; the goals
still apply, loosely).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.night import MODE, results_folder  # noqa: E402

MB = 1 << 20


@dataclass(frozen=True)
class Figure:
    name: str
    value: float
    goal: float
    unit: str

    @property
    def ok(self) -> bool:
        return self.value <= self.goal

    def line(self) -> str:
        ratio = self.value / self.goal if self.goal else 0.0
        mark = "ok" if self.ok else "MISSED"
        return f"{self.name:<44} {self.value:>10.2f} {self.unit:<3} goal <= {self.goal:<8g} {ratio:>6.2f}  {mark}"


def measured(argv: Sequence[str]) -> tuple[float, float]:
    """(wall seconds, peak resident MB) of one command in a process of its own."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):  # 1: the night failed, as it should
        raise SystemExit(f"{' '.join(argv)} failed:\n{err.decode(errors='replace')}")
    return seconds, usage.ru_maxrss / 1024


def tree_bytes(folder: Path) -> int:
    """Bytes of the files under ``folder``, links not followed (``latest`` is a link)."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def tipc(*args: str) -> list[str]:
    return [sys.executable, "-m", "tipc", *args]


def report_figures(tmp: Path, stages: int) -> Iterator[Figure]:
    results = tmp / "results"
    results_folder(results, stages)
    out = tmp / "reports"
    seconds, peak = measured(tipc("report", str(results), "--out", str(out), "--no-history"))
    mode_dir = out / "zoo" / MODE
    first = mode_dir / "latest" / "index.html"
    yield Figure(f"report of {stages} stages: render", seconds, 15.0, "s")
    yield Figure(f"report of {stages} stages: peak memory", peak, 300.0, "MB")
    yield Figure("report: first page", first.stat().st_size / MB, 5.0, "MB")
    yield Figure("report: whole report on disk", tree_bytes(out) / MB, 100.0, "MB")
    latest = mode_dir / "latest"
    yield Figure("report: latest/ copies (0: a link)", 0.0 if latest.is_symlink() else tree_bytes(latest) / MB, 0, "MB")


def records_figures(tmp: Path, count: int, baseline: float) -> Iterator[Figure]:
    results = tmp / "many"
    results_folder(results, count, log_bytes=4096)  # memory is the figure here: small logs read fast
    size = (results / "results.jsonl").stat().st_size / MB
    _, peak = measured(tipc("report", str(results), "--out", str(tmp / "many-reports"), "--no-history"))
    yield Figure(f"report of {count} records ({size:.0f} MB jsonl): peak", peak, 300.0, "MB")


def merge_figures(tmp: Path, stages: int, shards: int) -> Iterator[Figure]:
    mode_dir = tmp / "night" / "zoo" / MODE
    each = stages // shards
    for k in range(1, shards + 1):
        results_folder(mode_dir / "shards" / "g1" / f"shard{k}", each, f"{k}/{shards}", (k - 1) * each)
        info = json.loads((mode_dir / "shards" / "g1" / f"shard{k}" / "run.json").read_text())
        info["run_group"] = "g1"
        (mode_dir / "shards" / "g1" / f"shard{k}" / "run.json").write_text(json.dumps(info))
    seconds, peak = measured(tipc("merge", str(mode_dir)))
    yield Figure(f"merge of {shards} shards ({stages} stages): time", seconds, 10.0, "s")
    yield Figure(f"merge of {shards} shards: peak memory", peak, 300.0, "MB")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stages", type=int, default=12_000)
    parser.add_argument("--records", type=int, default=30_000, help="records of the large results.jsonl")
    parser.add_argument("--only", choices=("report", "records", "merge"), action="append")
    args = parser.parse_args(argv)
    only = set(args.only or ("report", "records", "merge"))
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp:
        if "report" in only:
            figures += report_figures(Path(tmp), args.stages)
        if "records" in only:
            figures += records_figures(Path(tmp), args.records, 0.0)
        if "merge" in only:
            figures += merge_figures(Path(tmp), args.stages, 32)
    print(f"night_size on {os.cpu_count()} CPU(s); value, goal, value/goal:")
    for f in figures:
        print(f.line())
    missed = [f.name for f in figures if not f.ok]
    print("every goal met" if not missed else f"missed: {', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
