"""The AutoLog benchmark block: write it, time it, parse it back.

The block is what PaddleOCR's predictors print with ``--benchmark True``
(docs/spec.md §6.1). This module never imports paddle: whoever writes a block passes
the paddle/config facts in, so the harness can parse and the example target
and the ``auto_log`` shim can write with the same code.

Stdlib only, on purpose: the ``auto_log`` shim runs inside the target's
interpreter, which may have nothing but paddle installed.
"""

from __future__ import annotations

import re
import resource
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from .logtext import messages

# (section title, dashes left, dashes right): AutoLog's uneven rulers, kept byte for byte.
_SECTIONS = (
    ("Env info", 22, 22),
    ("Paddle info", 22, 22),
    ("Conf info", 23, 23),
    ("Model info", 23, 22),
    ("Data info", 23, 23),
    ("Perf info", 23, 23),
)

# Block label → BenchmarkFigures field (both spellings of the driver label are read).
_LABELS = {
    "OS_version": "os_version",
    "CUDA_version": "cuda_version",
    "CUDNN_version": "cudnn_version",
    "drivier_version": "driver_version",  # AutoLog's spelling
    "driver_version": "driver_version",
    "paddle_version": "paddle_version",
    "paddle_commit": "paddle_commit",
    "log_api_version": "log_api_version",
    "runtime_device": "runtime_device",
    "ir_optim": "ir_optim",
    "enable_memory_optim": "enable_memory_optim",
    "enable_tensorrt": "enable_tensorrt",
    "enable_mkldnn": "enable_mkldnn",
    "cpu_math_library_num_threads": "cpu_threads",
    "model_name": "model_name",
    "precision": "precision",
    "batch_size": "batch_size",
    "input_shape": "input_shape",
    "data_num": "data_num",
    "cpu_rss(MB)": "cpu_rss_mb",
    "gpu_rss(MB)": "gpu_rss_mb",
    "gpu_util": "gpu_util",
    "total time spent(s)": "total_s",
    "preprocess_time(ms)": "preprocess_ms",
    "inference_time(ms)": "inference_ms",
    "postprocess_time(ms)": "postprocess_ms",
}
_LAST_LABEL = "postprocess_time(ms)"


@dataclass(frozen=True, slots=True)
class BenchmarkFigures:
    """One benchmark block. ``None`` = the block said None (or did not say)."""

    model_name: str | None = None
    precision: str | None = None
    batch_size: int | None = None
    input_shape: str | None = None
    data_num: int | None = None  # timed batches, not images (AutoLog's meaning)
    runtime_device: str | None = None
    ir_optim: bool | None = None
    enable_memory_optim: bool | None = None
    enable_tensorrt: bool | None = None
    enable_mkldnn: bool | None = None
    cpu_threads: int | None = None
    paddle_version: str | None = None
    paddle_commit: str | None = None
    log_api_version: str | None = None
    os_version: str | None = None
    cuda_version: str | None = None
    cudnn_version: str | None = None
    driver_version: str | None = None
    cpu_rss_mb: float | None = None
    gpu_rss_mb: float | None = None
    gpu_util: float | None = None
    total_s: float | None = None
    preprocess_ms: float | None = None
    inference_ms: float | None = None
    postprocess_ms: float | None = None

    def metrics(self) -> dict[str, Any]:
        """The ``StageRecord.metrics`` keys of an infer stage (docs/architecture.md)."""
        keys = (
            "preprocess_ms",
            "inference_ms",
            "postprocess_ms",
            "total_s",
            "cpu_rss_mb",
            "gpu_rss_mb",
            "gpu_util",
            "batch_size",
            "data_num",
            "precision",
            "runtime_device",
            "enable_mkldnn",
            "cpu_threads",
            "enable_tensorrt",
            "paddle_version",
            "model_name",
        )
        return {key: getattr(self, key) for key in keys}


_BOOL_FIELDS = frozenset({"ir_optim", "enable_memory_optim", "enable_tensorrt", "enable_mkldnn"})
_INT_FIELDS = frozenset({"batch_size", "data_num", "cpu_threads"})
_FLOAT_FIELDS = frozenset(
    {"cpu_rss_mb", "gpu_rss_mb", "gpu_util", "total_s", "preprocess_ms", "inference_ms", "postprocess_ms"}
)


# ---------------------------------------------------------------- writing


def _text(value: object) -> str:
    return "None" if value is None else str(value)


def format_benchmark_block(figures: BenchmarkFigures) -> tuple[str, ...]:
    """The block's messages, one per logger call; the logger adds its own prefix.

    The first message is a newline, as AutoLog's is; field lines start with a
    space because AutoLog prints an empty identifier before each of them.
    """
    f = figures
    rows = {
        "Env info": (
            ("OS_version", f.os_version),
            ("CUDA_version", f.cuda_version),
            ("CUDNN_version", f.cudnn_version),
            ("drivier_version", f.driver_version),
        ),
        "Paddle info": (
            ("paddle_version", f.paddle_version),
            ("paddle_commit", f.paddle_commit),
            ("log_api_version", f.log_api_version),
        ),
        "Conf info": (
            ("runtime_device", f.runtime_device),
            ("ir_optim", f.ir_optim),
            ("enable_memory_optim", f.enable_memory_optim),
            ("enable_tensorrt", f.enable_tensorrt),
            ("enable_mkldnn", f.enable_mkldnn),
            ("cpu_math_library_num_threads", f.cpu_threads),
        ),
        "Model info": (("model_name", f.model_name), ("precision", f.precision)),
        "Data info": (("batch_size", f.batch_size), ("input_shape", f.input_shape), ("data_num", f.data_num)),
    }
    lines = ["\n"]
    for title, left, right in _SECTIONS:
        lines.append(f"{'-' * left} {title} {'-' * right}")
        if title == "Perf info":
            lines += [
                f" cpu_rss(MB): {_text(f.cpu_rss_mb)}, gpu_rss(MB): {_text(f.gpu_rss_mb)}, "
                f"gpu_util: {_text(f.gpu_util)}%",
                f" total time spent(s): {_text(f.total_s)}",
                f" preprocess_time(ms): {_text(f.preprocess_ms)}, inference_time(ms): {_text(f.inference_ms)}, "
                f"postprocess_time(ms): {_text(f.postprocess_ms)}",
            ]
        else:
            lines += [f" {label}: {_text(value)}" for label, value in rows[title]]
    return tuple(lines)


def peak_rss_mb() -> float:
    """This process's peak resident set so far (``getrusage``: KiB on Linux, bytes on macOS).

    A peak, not a sample: AutoLog reports the first sample its sampler took,
    which is the memory right after predictor creation (spec B21).
    """
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (1024 * 1024 if sys.platform == "darwin" else 1024), 4)


class BenchmarkRecorder:
    """Per-batch timers with AutoLog's protocol: ``start()``, ``stamp()``…, ``end()``.

    A batch's stamps split it into the ``time_keys`` intervals (``end(stamp=True)``
    closes the last one); its total is end − start. The first ``warmup``
    batches count in ``data_num`` but not in the times.

    PaddleOCR's recogniser calls ``start()`` once and then, per batch, ``stamp()``,
    ``stamp()``, ``end(stamp=True)``: a stamp with no batch running opens the next
    one, as AutoLog's does. AutoLog opens it at that stamp, losing the batch's
    preprocessing time; here it opens where the previous batch ended.
    """

    def __init__(
        self,
        time_keys: Iterable[str] = ("preprocess_time", "inference_time", "postprocess_time"),
        warmup: int = 0,
        clock: Callable[[], float] = time.perf_counter,
    ):
        self.time_keys = tuple(time_keys)
        self.warmup = warmup
        self._clock = clock
        self._stamps: list[float] = []
        self._batches: list[tuple[tuple[float, ...], float]] = []  # (stamps, end) per finished batch
        self._last_end: float | None = None

    def start(self) -> None:
        self._stamps = [self._clock()]

    def stamp(self) -> None:
        if not self._stamps:
            self._stamps = [self._clock() if self._last_end is None else self._last_end]
        self._stamps.append(self._clock())

    def end(self, stamp: bool = True) -> None:
        if not self._stamps:
            return
        now = self._clock()
        stamps = tuple(self._stamps) + ((now,) if stamp else ())
        self._batches.append((stamps, now))
        self._stamps = []
        self._last_end = now

    @property
    def batches(self) -> int:
        return len(self._batches)

    def interval_means_ms(self) -> dict[str, float | None]:
        """Mean of each interval over the timed batches, in ms (None without any)."""
        timed = [stamps for stamps, _ in self._batches[self.warmup :]]
        means = {}
        for index, key in enumerate(self.time_keys):
            spans = [s[index + 1] - s[index] for s in timed if len(s) > index + 1]
            means[key] = round(sum(spans) / len(spans) * 1000, 4) if spans else None
        return means

    def total_s(self) -> float | None:
        timed = self._batches[self.warmup :]
        return round(sum(end - stamps[0] for stamps, end in timed), 4) if timed else None

    def figures(self, base: BenchmarkFigures, cpu_rss_mb: float | None = None) -> BenchmarkFigures:
        """``base`` (config and version facts) completed with this run's times and peak memory."""
        means = self.interval_means_ms()
        return replace(
            base,
            data_num=self.batches,
            total_s=self.total_s(),
            preprocess_ms=means.get("preprocess_time"),
            inference_ms=means.get("inference_time"),
            postprocess_ms=means.get("postprocess_time"),
            cpu_rss_mb=peak_rss_mb() if cpu_rss_mb is None else cpu_rss_mb,
        )


# ---------------------------------------------------------------- parsing

_HEADER = re.compile(r"^\s*-{3,} ([A-Za-z ]+?) -{3,}\s*$")
_ENV_HEADER = "Env info"


def _convert(name: str, raw: str) -> str | int | float | bool | None:
    value = raw.strip().rstrip("%").strip()
    if value in ("", "None") or re.fullmatch(r"None(\.None)*", value):
        return None
    try:
        if name in _BOOL_FIELDS:
            return {"true": True, "false": False}.get(value.lower())
        if name in _INT_FIELDS:
            return int(float(value))
        if name in _FLOAT_FIELDS:
            return float(value)
    except ValueError:
        return None
    return value


def _pairs(message: str) -> list[tuple[str, str]]:
    """``a: 1, b(MB): 2`` → [("a", "1"), ("b(MB)", "2")]; unknown labels end the list."""
    pieces = message.strip().split(", ")
    if len(pieces) > 1 and all(p.split(": ", 1)[0] in _LABELS for p in pieces):
        return [(label, value) for label, _, value in (p.partition(": ") for p in pieces)]
    label, sep, value = message.strip().partition(":")
    return [(label, value)] if sep and label in _LABELS else []


def parse_benchmark_block(text: str) -> BenchmarkFigures | None:
    """The last benchmark block in ``text``, or None when there is none.

    Lines inside the block that are not block lines (AutoLog lets ``nvcc``
    output through) are skipped when they carry no logger prefix; a prefixed
    line that is not a block line ends the block.
    """
    lines = list(messages(text))
    starts = [i for i, (_, m) in enumerate(lines) if (h := _HEADER.match(m)) and h.group(1) == _ENV_HEADER]
    if not starts:
        return None
    values: dict[str, Any] = {}  # each value has its field's type, which _convert picks by name
    for prefixed, message in lines[starts[-1] :]:
        if _HEADER.match(message) or not message.strip():
            continue
        pairs = _pairs(message)
        if not pairs:
            if prefixed:
                break
            continue
        for label, raw in pairs:
            values[_LABELS[label]] = _convert(_LABELS[label], raw)
        if pairs[-1][0] == _LAST_LABEL:
            break
    return BenchmarkFigures(**values)
