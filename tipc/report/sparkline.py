"""A figure's runs as a word-sized plot: values → pixel geometry for ``templates/trends.html``.

Pure arithmetic, like ``tipc.report.svg``. The y scale spans the values and the noise band (so
the band is always drawn whole), runs are evenly spaced oldest to newest, the last point is
this run's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tipc.metrics.noise import Band

WIDTH, HEIGHT, PAD = 132, 30, 4


@dataclass(frozen=True, slots=True)
class Sparkline:
    width: int
    height: int
    polyline: str  # "x,y x,y ..." of every run, this one last
    last_x: float
    last_y: float
    band_top: float | None  # pixel rows of the band's high and low edges; None without a band
    band_bottom: float | None


def sparkline(values: Sequence[float], band: Band | None) -> Sparkline:
    """``values``: oldest first, this run's last (at least one)."""
    edges = [band.low, band.high] if band else []
    lo, hi = min([*values, *edges]), max([*values, *edges])
    span = (hi - lo) or abs(hi) or 1.0

    def py(v: float) -> float:
        return round(PAD + (hi - v) / span * (HEIGHT - 2 * PAD), 2)

    step = (WIDTH - 2 * PAD) / max(1, len(values) - 1)
    points = [(round(PAD + i * step, 2), py(v)) for i, v in enumerate(values)]
    if len(values) == 1:  # one run: its point in the middle, nothing to connect yet
        points = [(WIDTH / 2, py(values[0]) if hi != lo else HEIGHT / 2)]
    return Sparkline(
        WIDTH,
        HEIGHT,
        " ".join(f"{x},{y}" for x, y in points),
        points[-1][0],
        points[-1][1],
        py(band.high) if band else None,
        py(band.low) if band else None,
    )
