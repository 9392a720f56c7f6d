"""Earlier nights for the trend tests of both fronts: copies of a real run's trend line, dated before it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tipc.report.trend_store import TREND_FILE, read_store
from tipc.report.write import report_mode_dir


def seed_nights(reports: Path, model: str, mode: str, nights: int) -> Path:
    """Turn the one run the mode folder's history holds into ``nights`` identical nights, dated long
    before any run a test makes next (two runs in one second need not sort by their start). The
    training's peak RSS is left out: the fake target's figures are fixed, the process's memory is
    the machine's, and a history of identical copies would judge its every wobble."""
    path = report_mode_dir(reports, model, mode) / TREND_FILE
    (run,), clean = read_store(path, print)
    assert clean
    fixed = {key: value for key, value in run.figures.items() if key[2] != "peak_rss_mb"}
    copies = [replace(run, run=f"20000101T0000{n:02d}Z-{n:08x}", figures=fixed) for n in range(nights)]
    path.write_text("".join(e.to_json() + "\n" for e in copies), encoding="utf-8")
    return path
