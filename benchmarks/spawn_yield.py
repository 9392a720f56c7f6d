"""Why the executor yields its CPU after each spawn: a short child's time, side by side.

A child Python process (~25 ms, about the start of a stage's interpreter) is timed from its spawn
to its exit, in interleaved rounds, four ways:

* alone: the parent only waits;
* busy: the parent spends ``--work`` ms of CPU right after the spawn, as the harness does (the last
  stage's record, pytest's protocol, the report's part), then waits;
* yield: the same, after ``os.sched_yield()``;
* yield only: a yield, then the wait.

On a 2-core Linux VM (kernel 6.18), the new child waited behind the busy parent on the parent's
CPU while the other CPU idled; after a yield it ran at once. Prints the medians and the cost of the
parent's work to the child, per millisecond of work, with and without the yield.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

CHILD = "import json, decimal, email.message, argparse"  # a few ms of imports after the interpreter's start


def burn(ms: float) -> None:
    end = time.thread_time() + ms / 1000
    while time.thread_time() < end:
        pass


def child_time(after_spawn: Callable[[], None]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.DEVNULL, start_new_session=True)
    after_spawn()
    os.waitpid(proc.pid, 0)
    return (time.perf_counter() - t0) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--work", type=float, default=3.0, help="ms of the parent's CPU after each spawn")
    args = parser.parse_args()
    if not hasattr(os, "sched_yield"):
        print("skipped: this platform has no sched_yield")
        return 0
    work = args.work
    ways: dict[str, Callable[[], None]] = {
        "alone": lambda: None,
        "busy": lambda: burn(work),
        "yield": lambda: (os.sched_yield(), burn(work)),
        "yield only": os.sched_yield,
    }
    seen: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(args.repeat):
        for name, after in ways.items():
            seen[name].append(child_time(after))
    median = {name: statistics.median(values) for name, values in seen.items()}
    print(f"child from spawn to exit, median of {args.repeat} interleaved rounds; {os.cpu_count()} CPUs")
    for name, value in median.items():
        print(f"  {name:<10} {value:6.2f} ms ({value - median['alone']:+.2f} ms)")
    for name in ("busy", "yield"):
        per_ms = (median[name] - median["alone"]) / work
        print(f"{name}: the child took {per_ms:.2f} ms more per ms of the parent's work")
    return 0


if __name__ == "__main__":
    sys.exit(main())
