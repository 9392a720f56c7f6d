"""A tiny line-plot layout: data series → pixel geometry for ``templates/plot.svg``.

Pure arithmetic; the template draws it (and escapes every label). Scales are linear,
both axes start at zero when the data is positive, ticks fall on 1/2/5 × 10^k.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

WIDTH, HEIGHT = 600, 280
LEGEND_CHAR_PX = 6.4  # a generous average glyph width at the legend's 11.5px
LEFT, TOP, PLOT_W, PLOT_H = 60, 28, 330, 204
LEGEND_X, LEGEND_ROW = LEFT + PLOT_W + 24, 18
# Okabe–Ito: distinguishable with the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")


@dataclass(frozen=True, slots=True)
class Tick:
    pos: float  # pixel coordinate along its axis
    label: str


@dataclass(frozen=True, slots=True)
class PlotPoint:
    x: float
    y: float
    cx: float
    cy: float
    title: str


@dataclass(frozen=True, slots=True)
class PlotSeries:
    label: str
    color: str
    points: tuple[PlotPoint, ...]
    polyline: str  # "x,y x,y ..." in pixels
    legend_y: float


@dataclass(frozen=True, slots=True)
class Plot:
    id: str
    title: str
    x_label: str
    y_label: str
    width: int
    height: int
    left: float
    top: float
    right: float
    bottom: float
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    series: tuple[PlotSeries, ...]
    legend_x: float


def nice_step(span: float, target: int = 5, min_step: float = 0.0) -> float:
    raw = max(span / max(1, target), min_step)
    mag: float = 10 ** math.floor(math.log10(raw))  # typeshed: int ** int is Any (a negative power is a float)
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def nice_ticks(lo: float, hi: float, target: int = 5, min_step: float = 0.0) -> tuple[float, ...]:
    """Tick values covering [lo, hi], the first ≤ lo and the last ≥ hi, at least ``min_step`` apart."""
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    step = nice_step(hi - lo, target, min_step)
    first, last = math.floor(lo / step), math.ceil(hi / step)
    return tuple(round(i * step, 10) for i in range(first, last + 1))


def fmt_number(v: float) -> str:
    """Four significant digits as people write them: never an exponent (12346, not 1.23e+04)."""
    if v == 0 or not math.isfinite(v):
        return "0" if v == 0 else str(v)
    if abs(v) >= 1000:
        return f"{v:.0f}"
    if abs(v) < 0.01:  # three significant digits: 0.00123
        return f"{v:.{2 - math.floor(math.log10(abs(v)))}f}"
    return f"{v:.4g}"


# A larger unit where a figure reaches it: memory in GB from 1024 MB (the MB here are MiB:
# ru_maxrss and /proc count KiB), so that 4808.6 MB reads 4.7 GB.
_LARGER = {"MB": (1024.0, "GB")}


def _scale(unit: str, *values: float) -> tuple[float, str]:
    factor, larger = _LARGER.get(unit, (0.0, unit))
    if factor and values and max(abs(v) for v in values) >= factor:
        return factor, larger
    return 1.0, unit


def fmt_figure(value: float, unit: str) -> str:
    """A figure with its unit, the one place figures are written for people: ``4.7 GB``, ``374.8 ms``."""
    factor, shown = _scale(unit, value)
    return f"{fmt_number(value / factor)} {shown}".rstrip()


def fmt_range(low: float, high: float, unit: str) -> str:
    """Two figures in one unit: ``363.6–386 ms``, ``4.5–4.9 GB``."""
    factor, shown = _scale(unit, low, high)
    return f"{fmt_number(low / factor)}–{fmt_number(high / factor)} {shown}".rstrip()


def _domain(values: Sequence[float], min_step: float = 0.0) -> tuple[float, ...]:
    lo, hi = min(values), max(values)
    return nice_ticks(min(0.0, lo), hi, min_step=min_step)


def line_plot(
    plot_id: str,
    title: str,
    x_label: str,
    y_label: str,
    unit: str,
    series: Sequence[tuple[str, Sequence[tuple[float, float]]]],
    *,
    integer_x: bool = False,
) -> Plot:
    """Series are ``(label, [(x, y), ...])``; points are drawn in x order.

    ``integer_x``: x is a count (batch size), so no tick falls between whole numbers.
    """
    xs = [x for _, pts in series for x, _ in pts] or [0.0]
    ys = [y for _, pts in series for _, y in pts] or [0.0]
    xt, yt = _domain(xs, 1.0 if integer_x else 0.0), _domain(ys)

    def px(x: float) -> float:
        return round(LEFT + (x - xt[0]) / (xt[-1] - xt[0]) * PLOT_W, 2)

    def py(y: float) -> float:
        return round(TOP + PLOT_H - (y - yt[0]) / (yt[-1] - yt[0]) * PLOT_H, 2)

    drawn = []
    for i, (label, pts) in enumerate(series):
        points = tuple(
            PlotPoint(x, y, px(x), py(y), f"{label}: {x_label} {fmt_number(x)} → {fmt_number(y)} {unit}".rstrip())
            for x, y in sorted(pts)
        )
        drawn.append(
            PlotSeries(
                label,
                PALETTE[i % len(PALETTE)],
                points,
                " ".join(f"{p.cx},{p.cy}" for p in points),
                TOP + 8 + i * LEGEND_ROW,
            )
        )
    height = max(HEIGHT, TOP + 8 + len(drawn) * LEGEND_ROW)
    longest = max((len(s.label) for s in drawn), default=0)
    width = max(WIDTH, int(LEGEND_X + 26 + longest * LEGEND_CHAR_PX + 8))
    return Plot(
        id=plot_id,
        title=title,
        x_label=x_label,
        y_label=y_label,
        width=width,
        height=height,
        left=LEFT,
        top=TOP,
        right=LEFT + PLOT_W,
        bottom=TOP + PLOT_H,
        x_ticks=tuple(Tick(px(v), fmt_number(v)) for v in xt),
        y_ticks=tuple(Tick(py(v), fmt_number(v)) for v in yt),
        series=tuple(drawn),
        legend_x=LEGEND_X,
    )
