"""Numbers a stage's metrics yield, and which direction is "better" for each.

Throughput is defined once, here: samples per second of inference alone,
``1000 × batch_size / inference_ms`` (AutoLog's ``inference_time(ms)`` is per batch).
It leaves out pre/post-processing, so it is comparable across predictors.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tipc.history.keys import config_key
from tipc.history.store import RunFigures, SeriesKey
from tipc.results.records import StageRecord, Status

THROUGHPUT_DEFINITION = "throughput = 1000 × batch_size / inference_ms (samples/s, inference only)"


@dataclass(frozen=True, slots=True)
class Figure:
    key: str
    label: str
    unit: str
    higher_is_better: bool


FIGURES = (
    Figure("ips", "train ips", "samples/s", True),
    Figure("inference_ms", "inference time", "ms", False),
    Figure("throughput", "throughput", "samples/s", True),
    Figure("cpu_rss_mb", "CPU peak RSS", "MB", False),
    Figure("gpu_rss_mb", "GPU peak memory", "MB", False),
    Figure("peak_rss_mb", "training peak RSS", "MB", False),
)
FIGURE_BY_KEY = {f.key: f for f in FIGURES}


def number(value: Any) -> float | None:
    """A metric as a float; ``None`` for absent, null or non-numeric values."""
    if value is None or isinstance(value, bool):
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(out) else out  # NaN is no figure


def batch_size(record: StageRecord) -> float | None:
    bs = number(record.metrics.get("batch_size"))
    if bs is None and record.infer:
        bs = number(record.infer.get("batch_size"))
    return bs


def throughput(record: StageRecord) -> float | None:
    bs, ms = batch_size(record), number(record.metrics.get("inference_ms"))
    if bs is None or not ms:
        return None
    return 1000.0 * bs / ms


def stage_figures(record: StageRecord) -> dict[str, float]:
    """The comparable figures of one stage (empty for stages without any)."""
    m: Mapping[str, Any] = record.metrics
    values = {
        "ips": number(m.get("ips")) if record.kind == "train" else None,
        "inference_ms": number(m.get("inference_ms")),
        "throughput": throughput(record),
        "cpu_rss_mb": number(m.get("cpu_rss_mb")),
        "gpu_rss_mb": number(m.get("gpu_rss_mb")),
        # The executor's measure of the whole training process; inference reports its own (cpu_rss_mb).
        "peak_rss_mb": number(record.peak_rss_mb) if record.kind == "train" else None,
    }
    return {k: v for k, v in values.items() if v is not None}


def run_figures(run: str, records: Iterable[StageRecord]) -> tuple[RunFigures, ...]:
    """A run's figures, one per config that wrote ``records`` (the run's own: not carried over): the
    figures of the stages that passed. Configs that share a results folder keep apart histories;
    a config is its ``config_key``, wherever each shard had it checked out. A config none of whose
    stages passed has a line without figures: its history is still shown (``record_run`` does not
    store such a line)."""
    per_config: dict[str, dict[SeriesKey, float]] = {}
    for r in records:
        figures = per_config.setdefault(config_key(r.config), {})
        if r.status is Status.PASSED:
            figures.update(
                {(r.id, r.node_rank, key): value for key, value in stage_figures(r).items() if math.isfinite(value)}
            )
    return tuple(RunFigures(run, config, figures) for config, figures in per_config.items())
