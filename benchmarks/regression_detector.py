"""The regression detector on synthetic years: how many nights it takes to flag a step of 3, 5, 10
and 20 %, and how many false alarms it raises a year per 1,000 figures, each beside its goal (exit 1
when one is missed).

Every figure is judged each night against its earlier nights by ``tipc.history.changes.judge_change``,
as a report judges it, with the default policy (``--trend-runs 30``, ``--trend-min-runs 10``,
``--min-effect time=6%``). The noise is the quiet machine's of the docs' tinyrec runs (Trends and
regressions): σ = 3 % night to night (train ips 3.3 %, inference about 5 %, on a 2-core machine
shared with nothing), and one night in a hundred a spike 20–60 % slower (those runs had one, +42 %).

* false alarms: ``CELLS`` time figures, each a year (365 nights) of noise alone, judged every
  night from its first; each distinct night a regression is dated to is one alarm.
* delay: ``STEPS_PER_SIZE`` figures per step size, 40 nights of noise, then the figure steps
  ``size`` slower and stays there; the delay is the nights from the first slower night to the first
  regression (0: flagged on the first slower night itself), ``-`` when not flagged within
  ``WATCHED`` nights (a step below the minimum effect is never flagged, by design).

``python benchmarks/regression_detector.py [CELLS [SIGMA]]``: the default, 300 figure-years at
σ = 0.03, takes well under a minute of CPU (more wall time on a busy machine; both are printed).
The false alarms a year per 1,000 figures are estimated from those 300: one alarm reads 3.3.
``300 0.02`` judges a quieter machine's noise.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time

from tipc.history.changes import judge_change, min_effect_of
from tipc.metrics.noise import TrendPolicy, TrendVerdict

CELLS, NIGHTS = 300, 365
STEPS, STEPS_PER_SIZE, WARMUP, WATCHED = (0.03, 0.05, 0.10, 0.20), 60, 40, 20
SIGMA, SPIKE_RATE, SPIKE = 0.03, 0.01, (0.2, 0.6)
GOAL_DELAY = {0.10: 2}  # nights, for the median figure
GOAL_ALARMS = 1.0  # a year per 1,000 figures
POLICY = TrendPolicy()
MIN_EFFECT = min_effect_of("ms", POLICY.min_effect)


def night(rng: random.Random, level: float, sigma: float) -> float:
    value = level * (1 + rng.gauss(0, sigma))
    return value * (1 + rng.uniform(*SPIKE)) if rng.random() < SPIKE_RATE else value


def regressions(values: list[float], first: int) -> list[tuple[int, int]]:
    """(night judged, night the regression began) for every night from ``first`` flagged."""
    out = []
    for n in range(first, len(values)):
        change = judge_change(values[:n], values[n], False, MIN_EFFECT, POLICY)
        if change.verdict is TrendVerdict.REGRESSION and change.shift is not None:
            out.append((n, n - change.known + change.shift.began))
    return out


def false_alarms(rng: random.Random, cells: int, sigma: float) -> int:
    years = ([night(rng, 100.0, sigma) for _ in range(NIGHTS)] for _ in range(cells))
    return sum(len({began for _, began in regressions(year, 0)}) for year in years)


def delays(rng: random.Random, step: float, sigma: float) -> tuple[list[int], int]:
    """The delay of every flagged step, and how many were dated to the night the step began."""
    found, dated = [], 0
    for _ in range(STEPS_PER_SIZE):
        values = [night(rng, 100.0 * (1 + step * (n >= WARMUP)), sigma) for n in range(WARMUP + WATCHED)]
        flagged = regressions(values, WARMUP)
        if flagged:
            found.append(flagged[0][0] - WARMUP)
            dated += flagged[0][1] == WARMUP
    return found, dated


def main(cells: int, sigma: float) -> int:
    rng = random.Random(37)
    start, cpu = time.perf_counter(), time.process_time()
    missed = False
    spikes = f"{SPIKE_RATE:.0%} of nights {SPIKE[0]:.0%}–{SPIKE[1]:.0%} slower"
    load = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    print(f"noise: σ {sigma:.1%} a night, {spikes}; minimum effect {MIN_EFFECT:.0%}; {load}")
    print(f"{'step':>5} {'flagged':>9} {'median delay':>13} {'90th pct':>9} {'dated right':>12}   goal")
    for step in STEPS:
        found, dated = delays(rng, step, sigma)
        median = statistics.median(found) if found else None
        p90 = sorted(found)[int(0.9 * len(found))] if found else None
        goal = GOAL_DELAY.get(step)
        ok = goal is None or (median is not None and median <= goal and len(found) * 2 > STEPS_PER_SIZE)
        missed |= not ok
        verdict = "" if goal is None else f"median <= {goal} nights   {'ok' if ok else 'MISSED'}"
        print(f"{step:>5.0%} {len(found):>4}/{STEPS_PER_SIZE:<4} {'-' if median is None else f'{median:g}':>13} "
              f"{'-' if p90 is None else p90:>9} {dated:>12}   {verdict}")  # fmt: skip
    alarms = false_alarms(rng, cells, sigma)
    rate = alarms * 1000 / cells
    ok = rate <= GOAL_ALARMS
    missed |= not ok
    print(f"false alarms: {alarms} in {cells} figure-years = {rate:.1f} a year per 1,000 figures   "
          f"goal <= {GOAL_ALARMS:g}   {'ok' if ok else 'MISSED'}")  # fmt: skip
    print(f"{time.perf_counter() - start:.0f} s wall, {time.process_time() - cpu:.0f} s CPU")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else CELLS, float(sys.argv[2]) if len(sys.argv) > 2 else SIGMA))
