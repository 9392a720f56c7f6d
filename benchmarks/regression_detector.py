"""The regression detector on synthetic years: how many nights it takes to flag a step of 3, 5, 10
and 20 %, and how many false alarms it raises a year per 1,000 figures, each beside its goal (exit 1
when one is missed).

Every figure is judged each night against its earlier nights by ``tipc.history.changes.judge_change``,
as a report judges it, with the default policy (``--trend-runs 30``, ``--trend-min-runs 10``,
``--min-effect time=6%``; ``--runs N`` sets ``--trend-runs``). The noise is the quiet machine's of
the docs' tinyrec runs (Trends and regressions): σ = 3 % night to night (train ips 3.3 %, inference
about 5 %, on a 2-core machine shared with nothing), and one night in a hundred a spike
20–60 % slower (those runs had one, +42 %).

* false alarms: ``CELLS`` time figures, each a year (365 nights) of noise alone, judged every
  night from its first; each distinct night a regression is dated to is one alarm.
* delay: ``STEPS_PER_SIZE`` figures per step size, ``--trend-runs`` + 10 nights of noise (40 by
  default), then the figure steps
  ``size`` slower and stays there; the delay is the nights from the first slower night to the first
  regression (0: flagged on the first slower night itself), ``-`` when not flagged within
  ``WATCHED`` nights (a step below the minimum effect is never flagged, by design). The median and
  90th percentile are of all the steps, those never flagged counted as the slowest.

``python benchmarks/regression_detector.py [CELLS [SIGMA]] [--runs N] [--jobs N]``: the default,
300 figure-years at σ = 0.03, takes about a minute of CPU (more wall time on a busy machine). The
false alarms a year per 1,000 figures are estimated from those 300: one alarm reads 3.3, and none
in 300 still allows a rate of 10 (95 %): judge 3,000 or more (``--jobs`` spreads them over
processes; the figures do not depend on it) before trusting a rate near the goal. ``300 0.02``
judges a quieter machine's noise.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from tipc.history.changes import judge_change, min_effect_of
from tipc.metrics.noise import TrendPolicy, TrendVerdict

CELLS, NIGHTS = 300, 365
STEPS, STEPS_PER_SIZE, WATCHED = (0.03, 0.05, 0.10, 0.20), 60, 20
SIGMA, SPIKE_RATE, SPIKE = 0.03, 0.01, (0.2, 0.6)
GOAL_DELAY = {0.10: 2}  # nights, for the median figure
GOAL_ALARMS = 1.0  # a year per 1,000 figures
CHUNK = 100  # figure-years a worker judges; each chunk has its own seed, so --jobs never changes the figures


def night(rng: random.Random, level: float, sigma: float) -> float:
    value = level * (1 + rng.gauss(0, sigma))
    return value * (1 + rng.uniform(*SPIKE)) if rng.random() < SPIKE_RATE else value


def regressions(values: list[float], first: int, policy: TrendPolicy) -> list[tuple[int, int]]:
    """(night judged, night the regression began) for every night from ``first`` flagged."""
    effect = min_effect_of("ms", policy.min_effect)
    out = []
    for n in range(first, len(values)):
        change = judge_change(values[:n], values[n], False, effect, policy)
        if change.verdict is TrendVerdict.REGRESSION and change.shift is not None:
            out.append((n, n - change.known + change.shift.began))
    return out


def false_alarms(chunk: int, cells: int, sigma: float, policy: TrendPolicy) -> int:
    rng = random.Random(f"alarms {chunk}")
    years = ([night(rng, 100.0, sigma) for _ in range(NIGHTS)] for _ in range(cells))
    return sum(len({began for _, began in regressions(year, 0, policy)}) for year in years)


def delays(step: float, sigma: float, policy: TrendPolicy) -> tuple[list[int], int]:
    """The delay of every flagged step, and how many were dated to the night the step began: the step
    comes after a full window of nights (``--trend-runs``) and ten more."""
    rng, warmup = random.Random(f"step {step}"), policy.runs + 10
    found, dated = [], 0
    for _ in range(STEPS_PER_SIZE):
        values = [night(rng, 100.0 * (1 + step * (n >= warmup)), sigma) for n in range(warmup + WATCHED)]
        flagged = regressions(values, warmup, policy)
        if flagged:
            found.append(flagged[0][0] - warmup)
            dated += flagged[0][1] == warmup
    return found, dated


def _nights(delay: float) -> str:
    return "-" if delay == math.inf else f"{delay:g}"


def main(cells: int, sigma: float, policy: TrendPolicy, jobs: int) -> int:
    start, cpu = time.perf_counter(), time.process_time()
    missed = False
    spikes = f"{SPIKE_RATE:.0%} of nights {SPIKE[0]:.0%}–{SPIKE[1]:.0%} slower"
    load = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    effect = min_effect_of("ms", policy.min_effect)
    print(f"noise: σ {sigma:.1%} a night, {spikes}; --trend-runs {policy.runs}, minimum effect {effect:.0%}; {load}")
    print(f"{'step':>5} {'flagged':>9} {'median delay':>13} {'90th pct':>9} {'dated right':>12}   goal")
    for step in STEPS:
        found, dated = delays(step, sigma, policy)
        # Steps never flagged count as the slowest: the median and 90th percentile are of all steps.
        every = sorted(found) + [math.inf] * (STEPS_PER_SIZE - len(found))
        median, p90 = statistics.median(every), every[int(0.9 * STEPS_PER_SIZE)]
        goal = GOAL_DELAY.get(step)
        ok = goal is None or median <= goal
        missed |= not ok
        verdict = "" if goal is None else f"median <= {goal} nights   {'ok' if ok else 'MISSED'}"
        print(f"{step:>5.0%} {len(found):>4}/{STEPS_PER_SIZE:<4} {_nights(median):>13} {_nights(p90):>9} "
              f"{dated:>12}   {verdict}")  # fmt: skip
    sizes = [min(CHUNK, cells - at) for at in range(0, cells, CHUNK)]
    with ProcessPoolExecutor(jobs) as pool:
        alarms = sum(pool.map(false_alarms, range(len(sizes)), sizes, [sigma] * len(sizes), [policy] * len(sizes)))
    rate = alarms * 1000 / cells
    ok = rate <= GOAL_ALARMS
    missed |= not ok
    print(f"false alarms: {alarms} in {cells} figure-years = {rate:.1f} a year per 1,000 figures   "
          f"goal <= {GOAL_ALARMS:g}   {'ok' if ok else 'MISSED'}")  # fmt: skip
    print(f"{time.perf_counter() - start:.0f} s wall, {time.process_time() - cpu:.0f} s CPU (this process)")
    return 1 if missed else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cells", nargs="?", type=int, default=CELLS, help="figure-years of noise alone")
    parser.add_argument("sigma", nargs="?", type=float, default=SIGMA, help="night-to-night noise, 0.03 = 3 %%")
    parser.add_argument("--runs", type=int, default=TrendPolicy().runs, help="--trend-runs: nights before a shift")
    parser.add_argument("--jobs", type=int, default=1, help="processes judging the figure-years")
    args = parser.parse_args()
    sys.exit(main(args.cells, args.sigma, replace(TrendPolicy(), runs=args.runs), args.jobs))
