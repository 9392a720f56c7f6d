"""Earlier nights for the trend tests of both fronts: copies of a real run's trend figures, dated before it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tipc.history.store import History


def seed_nights(store: Path, model: str, mode: str, nights: int) -> Path:
    """Turn the one run the history store holds into ``nights`` identical nights, dated long
    before any run a test makes next (two runs in one second need not sort by their start). The
    training's peak RSS is left out: the fake target's figures are fixed, the process's memory is
    the machine's, and a history of identical copies would judge its every wobble."""
    history = History(store)
    (run,) = history.series(model, mode)
    fixed = {key: value for key, value in run.figures.items() if key[2] != "peak_rss_mb"}
    copies = [replace(run, run=f"20000101T0000{n:02d}Z-{n:08x}", figures=fixed) for n in range(nights)]
    history.prune(0, model, mode)
    history.record_run(model, mode, copies, ())
    return store
