from __future__ import annotations

import pytest

from tipc.report.svg import fmt_figure, fmt_number, fmt_range, line_plot, nice_ticks


@pytest.mark.parametrize(
    "lo, hi, expected",
    [
        (0, 6, (0, 2, 4, 6)),
        (0, 374.8, (0, 100, 200, 300, 400)),
        (0, 16.6, (0, 5, 10, 15, 20)),
        (0, 0, (0, 0.2, 0.4, 0.6, 0.8, 1.0)),
        (0, 0.013, (0, 0.005, 0.01, 0.015)),
    ],
    ids=["batch-sizes", "hundreds", "teens", "flat-zero", "tiny"],
)
def test_nice_ticks_cover_the_range_on_round_steps(lo, hi, expected):
    assert nice_ticks(lo, hi) == pytest.approx(expected)


@pytest.mark.parametrize(
    "value, text",
    [
        (0, "0"),
        (6, "6"),
        (374.8274, "374.8"),
        (0.00123, "0.00123"),
        (12345.6, "12346"),
        (4880.4, "4880"),
        (0.000123, "0.000123"),
    ],
    ids=["zero", "int", "ms", "small", "large-no-exponent", "thousands", "tiny"],
)
def test_fmt_number(value, text):
    assert fmt_number(value) == text


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (4808.6, "MB", "4.696 GB"),
        (485.3, "MB", "485.3 MB"),
        (4880.0, "ms", "4880 ms"),
        (120.5, "samples/s", "120.5 samples/s"),
        (3.0, "", "3"),
    ],
    ids=["memory-in-gb", "memory-in-mb", "no-exponent", "throughput", "no-unit"],
)
def test_figures_are_written_in_units_people_read(value, unit, text):
    assert fmt_figure(value, unit) == text
    assert "e+" not in text


def test_a_range_is_written_in_one_unit():
    assert fmt_range(363.6, 386.0, "ms") == "363.6–386 ms"
    assert fmt_range(900.0, 4808.6, "MB") == "0.8789–4.696 GB"


def test_line_plot_places_points_inside_the_axes_in_x_order():
    plot = line_plot(
        "p", "Inference", "batch size", "ms", "ms", [("cpu fp32", [(6, 374.8), (1, 60.2)]), ("cpu int8", [(1, 30.0)])]
    )
    a, b = plot.series
    assert [p.x for p in a.points] == [1, 6]
    assert a.points[0].title == "cpu fp32: batch size 1 → 60.2 ms"
    for p in a.points + b.points:
        assert plot.left <= p.cx <= plot.right and plot.top <= p.cy <= plot.bottom
    assert a.points[1].cy < a.points[0].cy  # larger values are drawn higher
    assert a.polyline == " ".join(f"{p.cx},{p.cy}" for p in a.points)
    assert a.color != b.color and a.legend_y < b.legend_y
    assert next(t.label for t in plot.x_ticks) == "0" and plot.y_ticks[-1].label == "400"


def test_long_legend_labels_widen_the_plot():
    short = line_plot("p", "t", "x", "y", "", [("a", [(1, 1)])])
    long = line_plot("p", "t", "x", "y", "", [("a" * 90, [(1, 1)])])
    assert long.width > short.width


def test_integer_axis_has_no_fractional_ticks():
    plot = line_plot("p", "t", "batch size", "ms", "ms", [("a", [(1, 50.0)])], integer_x=True)
    assert [t.label for t in plot.x_ticks] == ["0", "1"]
