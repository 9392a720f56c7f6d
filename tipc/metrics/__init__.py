"""Figures from stage logs: the benchmark block, train speed/loss, eval metrics.

``extract(kind, log_text)`` is what the runner calls to fill
``StageRecord.metrics``; the keys per kind are listed in docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .benchmark import BenchmarkFigures, BenchmarkRecorder, format_benchmark_block, parse_benchmark_block
from .evallog import eval_metrics
from .trainlog import train_metrics

__all__ = [
    "BenchmarkFigures",
    "BenchmarkRecorder",
    "eval_metrics",
    "extract",
    "format_benchmark_block",
    "parse_benchmark_block",
    "train_metrics",
]


def _infer_metrics(text: str) -> dict[str, Any]:
    figures = parse_benchmark_block(text)
    return {} if figures is None else figures.metrics()


_EXTRACTORS: dict[str, Callable[[str], dict[str, Any]]] = {
    "train": train_metrics,
    "eval": eval_metrics,
    "export": lambda text: {},
    "convert": lambda text: {},  # paddle2onnx prints no figure: its record's duration and peak RSS are them
    "infer": _infer_metrics,
}


def extract(kind: str, log_text: str) -> dict[str, Any]:
    """Metrics of one stage's log; ``kind`` is a ``StageKind`` value."""
    try:
        extractor = _EXTRACTORS[str(getattr(kind, "value", kind))]
    except KeyError:
        raise ValueError(
            f"metrics.extract: unknown stage kind {kind!r}, expected one of {sorted(_EXTRACTORS)}"
        ) from None
    return extractor(log_text)
