"""How noisy are a machine's figures? Read a report folder's trend history and print, per figure,
its spread across runs and the ``--noise-k`` that would have let every run pass.

    python benchmarks/trend_noise.py reports/tinyrec/lite_train_lite_infer

Per series: the number of runs, the median, the scaled MAD (≈ σ) as a share of the median,
the widest run's distance from the median in MADs (the k a band needs to hold every run), and
the range; then, replaying the history night by night (each run judged against the runs before
it, ``--trend-min-runs 5``), how many regressions each k would have flagged. On a history without
a real change every one of them is a false alarm: pick ``--noise-k`` where they stop.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from tipc.history.reports import TREND_FILE, read_store
from tipc.metrics.noise import MAD_FLOOR, MAD_SCALE, TrendPolicy, TrendVerdict, judge
from tipc.report.figures import FIGURE_BY_KEY

KS = (2.0, 3.0, 4.0, 6.0, 8.0)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    entries, _ = read_store(Path(argv[0]) / TREND_FILE, lambda line: print(line, file=sys.stderr))
    series: dict[tuple[str, str], list[float]] = {}
    for entry in entries:
        for (stage, node, figure), value in entry.figures.items():
            series.setdefault((f"{stage}@{node}", figure), []).append(value)
    print(f"{len(entries)} runs in {Path(argv[0]) / TREND_FILE}")
    print(f"{'stage':<58} {'figure':<13} {'runs':>4} {'median':>9} {'MAD/med':>8} {'k to hold all':>13} {'range':>17}")
    for (stage, figure), values in series.items():
        median = statistics.median(values)
        mad = max(MAD_SCALE * statistics.median(abs(v - median) for v in values), MAD_FLOOR * abs(median))
        k_all = max(abs(v - median) for v in values) / mad
        print(
            f"{stage[-58:]:<58} {figure:<13} {len(values):>4} {median:>9.4g} {mad / abs(median or 1):>8.1%} "
            f"{k_all:>13.1f} {min(values):>8.4g}–{max(values):<8.4g}"
        )
    print(f"replayed night by night, regressions flagged (min runs 5) at k = {', '.join(f'{k:g}' for k in KS)}:")
    for (stage, figure), values in series.items():
        better = FIGURE_BY_KEY[figure].higher_is_better
        flagged = [
            sum(
                judge(values[:i], values[i], better, TrendPolicy(k=k)).verdict is TrendVerdict.REGRESSION
                for i in range(1, len(values))
            )
            for k in KS
        ]
        print(f"{stage[-58:]:<58} {figure:<13} {' '.join(f'{n:>4}' for n in flagged)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
