"""How long a stage may run: defaults per stage kind and mode, and user overrides.

The defaults are generous ceilings, not estimates: they exist so that a hung
``paddle.distributed.launch`` (the bash waited forever, docs/spec.md §8 B20) ends the
run instead of holding the machine. Training limits follow the epochs a mode
trains: ``lite_train_whole_infer`` trains with the lite values (tipc's fix of
B10), so only ``whole_train_whole_infer`` gets the full schedule's ceiling;
the ``whole_infer`` modes infer on the whole data set, hence their longer
inference limits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from tipc.plan.model import IN_HARNESS, StageKind

KINDS = tuple(k.value for k in StageKind if k not in IN_HARNESS)  # in the harness: nothing to time
HOUR = 3600.0

DEFAULT_TIMEOUTS: Mapping[str, Mapping[str, float]] = MappingProxyType(
    {
        # convert: paddle2onnx_infer's kind; in the other modes only for --timeout all= to name every kind.
        "lite_train_lite_infer": {"train": 2 * HOUR, "eval": HOUR, "export": HOUR, "infer": HOUR, "convert": HOUR},
        "lite_train_whole_infer": {
            "train": 2 * HOUR,
            "eval": 2 * HOUR,
            "export": HOUR,
            "infer": 2 * HOUR,
            "convert": HOUR,
        },
        "whole_train_whole_infer": {
            "train": 72 * HOUR,
            "eval": 6 * HOUR,
            "export": HOUR,
            "infer": 2 * HOUR,
            "convert": HOUR,
        },
        "whole_infer": {"train": 2 * HOUR, "eval": 2 * HOUR, "export": HOUR, "infer": 2 * HOUR, "convert": HOUR},
        # The other suites' KL quantization: whole_infer's export (the quantization) and inference.
        "klquant_whole_infer": {
            "train": 2 * HOUR,
            "eval": 2 * HOUR,
            "export": HOUR,
            "infer": 2 * HOUR,
            "convert": HOUR,
        },
        # benchmark_train trains a few epochs of a benchmark set per run (× N × C with PARAMS); nothing else runs.
        "benchmark_train": {"train": 6 * HOUR, "eval": HOUR, "export": HOUR, "infer": HOUR, "convert": HOUR},
        # test_paddle2onnx.sh: PaddleDetection's export, a conversion per model, inference on a few images.
        "paddle2onnx_infer": {"train": HOUR, "eval": HOUR, "export": HOUR, "infer": HOUR, "convert": HOUR},
    }
)


@dataclass(frozen=True, slots=True)
class Limits:
    """Seconds per stage kind; ``hang``: seconds without new output (None: not watched)."""

    timeouts: Mapping[str, float] = field(default_factory=dict)
    hang: float | None = None

    def timeout(self, kind: str) -> float | None:
        return self.timeouts.get(kind)


def parse_timeout(text: str) -> tuple[str, float]:
    """``KIND=SECONDS`` → (kind, seconds); KIND is a stage kind or ``all``. Raises ValueError."""
    kind, sep, value = text.partition("=")
    kind = kind.strip()
    if not sep or kind not in (*KINDS, "all"):
        raise ValueError(f"expected KIND=SECONDS with KIND one of {', '.join(KINDS)}, all; got {text!r}")
    return kind, parse_seconds(value)


def parse_seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise ValueError(f"expected a number of seconds, got {value!r}") from None
    if not seconds > 0:  # also refuses nan, which would never time out
        raise ValueError(f"expected a positive number of seconds, got {value!r}")
    return seconds


def resolve_limits(mode: str, overrides: tuple[str, ...] = (), hang: float | None = None) -> Limits:
    """Mode defaults, then ``all=`` overrides, then per-kind ones, in the order given."""
    timeouts = dict(DEFAULT_TIMEOUTS.get(mode, DEFAULT_TIMEOUTS["lite_train_lite_infer"]))
    parsed = [parse_timeout(text) for text in overrides]
    for kind, seconds in sorted(parsed, key=lambda kv: kv[0] != "all"):
        for k in KINDS if kind == "all" else (kind,):
            timeouts[k] = seconds
    return Limits(timeouts=MappingProxyType(timeouts), hang=hang)
