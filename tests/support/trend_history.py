"""Earlier nights for the trend tests of both fronts: copies of a real run's trend figures, dated before it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tipc.history.store import History

SLOWER = {"inference_ms": 2.0, "throughput": 0.5}  # what TIPC_FAKE=infer:slower=2 does to a night


def seed_nights(store: Path, model: str, mode: str, nights: int, slower: int = 0) -> Path:
    """Turn the one run the history store holds into ``nights`` identical nights, dated long
    before any run a test makes next (two runs in one second need not sort by their start), the
    last ``slower`` of them with inference twice as slow: a regression shows in three nights before
    it is judged, so two seeded ones and the test's own make one. The training's peak RSS is left
    out: the fake target's figures are fixed, the process's memory is the machine's, and a history
    of identical copies would judge its every wobble."""
    history = History(store)
    (run,) = history.series(model, mode)
    fixed = {key: value for key, value in run.figures.items() if key[2] != "peak_rss_mb"}
    slow = {key: value * SLOWER.get(key[2], 1.0) for key, value in fixed.items()}
    copies = [
        replace(run, run=f"20000101T0000{n:02d}Z-{n:08x}", figures=slow if n >= nights - slower else fixed)
        for n in range(nights)
    ]
    history.prune(0, model, mode)
    history.record_run(model, mode, copies, ())
    return store
