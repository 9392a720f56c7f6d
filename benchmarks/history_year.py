"""A year of nights of a large matrix in the history store: its size, and the times to write a night,
list the store, export it, and prune it, each beside its goal (exit 1 when one is missed).

80 configs of one model and mode (a matrix whose configs share a results folder and a report), 40
figures each, 365 nights: one ``record_run`` per night (every config's figures and its stages'
durations, in one transaction, as that report writes them). A matrix of one model per config writes
one transaction per report instead: its cost is printed too (one config's night, written alone).
``python benchmarks/history_year.py [NIGHTS]``: fewer nights for a quick look (the goals stay a
year's).
"""

from __future__ import annotations

import datetime
import io
import json
import os
import random
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

from tipc.cli.main import main
from tipc.history.store import HISTORY_FILE, History, Retention, RunFigures, StageTime

CONFIGS, FIGURES, NIGHTS = 80, 40, 365
MODEL, MODE = "suite", "lite_train_lite_infer"
GOALS = {"size_mb": 50.0, "write_s": 0.2, "list_s": 1.0, "export_s": 5.0}


def night(n: int, rng: random.Random) -> tuple[list[RunFigures], list[StageTime]]:
    day = datetime.date(2026, 1, 1) + datetime.timedelta(days=n)
    run = f"{day:%Y%m%d}T013000Z-{n:08x}"
    runs, stages = [], []
    for c in range(CONFIGS):
        config = f"model{c:02d}/train_infer_python.txt"
        figures = {
            (f"chain::infer[case-{k // 4}]", 0, ("inference_ms", "ips", "peak_rss_mb", "throughput")[k % 4]): round(
                rng.gauss(100.0, 5.0), 3
            )
            for k in range(FIGURES)
        }
        runs.append(RunFigures(run, config, figures))
        stages.append(StageTime(config, "chain::train", rng.uniform(50, 70), 800.0, time.time()))
    return runs, stages


def timed(action: object) -> tuple[float, float]:
    """Wall and CPU seconds of ``action`` (SQLite works in this process: its time is in both)."""
    wall, cpu = time.perf_counter(), time.process_time()
    with redirect_stdout(io.StringIO()):
        action()  # type: ignore[operator]
    return time.perf_counter() - wall, time.process_time() - cpu


def main_(nights: int) -> int:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / HISTORY_FILE
        store = History(path)
        for n in range(nights):
            store.record_run(MODEL, MODE, *night(n, rng))
        runs, stages = night(nights, rng)
        write_s = timed(lambda: store.record_run(MODEL, MODE, runs, stages))
        one_s = timed(lambda: store.record_run("alone", MODE, runs[:1], stages[:1]))
        size_mb = path.stat().st_size / 1e6
        list_s = timed(lambda: main(["history", "--file", str(path), "list"]))
        lines = 0

        def export() -> None:
            nonlocal lines
            for line in store.export():
                json.dumps(line)
                lines += 1

        export_s = timed(export)
        prune_s = timed(lambda: store.prune(retention=Retention(daily_days=90)))
        pruned_mb = path.stat().st_size / 1e6
    print(f"{CONFIGS} configs x {FIGURES} figures x {nights} nights ({CONFIGS * FIGURES * nights} figures);"
          f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")  # fmt: skip
    missed = size_mb > GOALS["size_mb"]
    print(f"  size_mb    {size_mb:9.3f}   goal <= {GOALS['size_mb']:g}   {'MISSED' if missed else 'ok'}")
    # Judged by CPU time: on a shared machine the wall clock measures the other jobs too.
    for name, (wall, cpu) in {"write_s": write_s, "list_s": list_s, "export_s": export_s}.items():
        ok = cpu <= GOALS[name]
        missed |= not ok
        print(f"  {name:10} {cpu:9.3f}   goal <= {GOALS[name]:g}   {'ok' if ok else 'MISSED'}   (wall {wall:.3f})")
    print(f"  exported {lines} lines; prune (90 days, then weekly) {prune_s[0]:.2f} s -> {pruned_mb:.1f} MB")
    print(f"  one config's night written alone (one report's transaction): {one_s[0] * 1000:.1f} ms wall")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main_(int(sys.argv[1]) if len(sys.argv) > 1 else NIGHTS))
