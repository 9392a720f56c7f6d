"""The inference sweep and the bash's exact skip rules (docs/spec.md §3.6).

Every dropped cell is listed with its rule."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from tipc.config.bounds import excerpt
from tipc.config.model import Field
from tipc.dialects.paddleocr.config.formats import SweepConfig
from tipc.plan.devices import CPU_VALUES, GPU_VALUES, accelerator_values
from tipc.plan.lists import distinct_values
from tipc.plan.model import InferCase
from tipc.plan.naming import infer_stage_name

NO_GPU = "no GPU on this node (device cpu)"
# (use_tensorrt, precision, quant) -> why the GPU cell is dropped, or None: the scripts differ here.
GpuRule = Callable[[str, str, bool], str | None]


@dataclass(frozen=True, slots=True)
class Dropped:
    name: str  # the stage name the cell would have had
    reason: str


@dataclass(frozen=True, slots=True)
class Sweep:
    cases: tuple[InferCase, ...]
    dropped: tuple[Dropped, ...]


def infer_sweep(
    config: SweepConfig,
    quant: bool,
    gpu_available: bool = True,
    gpu_rule: GpuRule | None = None,
    plan_device: str = "gpu",
) -> Sweep:
    """All cells in the bash's loop order: use_gpu, then mkldnn→threads→batch→precision (CPU)
    or trt→precision→batch (GPU). GPU cells are dropped by ``gpu_rule``, by default the train script's.
    ``plan_device``: the plan's device, whose word the accelerator's cells take (``accelerator_values``)."""
    path = config.path
    cases: list[InferCase] = []
    dropped: list[Dropped] = []
    accelerator = accelerator_values(plan_device)
    for use_gpu in distinct_values(config.infer_use_gpu, path, same=_device_or_self):
        device = _device_or_self(use_gpu, accelerator)
        if device == "cpu":
            cells = _cpu_cells(config, use_gpu, quant)
        elif device == "gpu":
            cells = _gpu_cells(config, use_gpu, quant, gpu_available, gpu_rule or gpu_skip_rule)
        else:
            field = config.infer_use_gpu
            dropped.append(
                Dropped(
                    f"infer[use_gpu_{use_gpu}]",
                    f"{field.key} value {excerpt(use_gpu)!r} "
                    f"(line {field.line}): only True/False/gpu/cpu are supported",
                )
            )
            continue
        for case, reason in cells:
            if reason is None:
                cases.append(case)
            else:
                dropped.append(Dropped(infer_stage_name(case), reason))
    return Sweep(tuple(cases), tuple(dropped))


def sweep_size(config: SweepConfig) -> int:
    """How many cells ``infer_sweep`` yields at most (lists are counted, not checked), without making them."""

    def count(*fields: Field) -> int:
        return math.prod(len(field.values()) for field in fields)

    cells = {
        "cpu": count(config.enable_mkldnn, config.cpu_threads, config.batch_size, config.precision),
        "gpu": count(config.use_tensorrt, config.precision, config.batch_size),
    }
    return sum(cells.get(_device_or_self(use_gpu), 1) for use_gpu in config.infer_use_gpu.values())


def _device_or_self(use_gpu: str, accelerator: tuple[str, ...] = GPU_VALUES) -> str:
    """The value as a device: cpu, gpu (an accelerator's cells), else the value marked, never read as a device."""
    if use_gpu in CPU_VALUES:
        return "cpu"
    if use_gpu in accelerator:
        return "gpu"
    return f"value {use_gpu}"


def _cpu_cells(config: SweepConfig, use_gpu: str, quant: bool) -> Iterator[tuple[InferCase, str | None]]:
    path = config.path
    batches, precisions = distinct_values(config.batch_size, path), distinct_values(config.precision, path)
    for mkldnn in distinct_values(config.enable_mkldnn, path):
        for threads in distinct_values(config.cpu_threads, path):
            for batch in batches:
                for precision in precisions:
                    case = InferCase("cpu", use_gpu, batch, precision, enable_mkldnn=mkldnn, cpu_threads=threads)
                    yield case, cpu_skip_rule(mkldnn, precision, quant)


def _gpu_cells(
    config: SweepConfig, use_gpu: str, quant: bool, gpu_available: bool, gpu_rule: GpuRule
) -> Iterator[tuple[InferCase, str | None]]:
    path = config.path
    precisions, batches = distinct_values(config.precision, path), distinct_values(config.batch_size, path)
    for trt in distinct_values(config.use_tensorrt, path):
        for precision in precisions:
            for batch in batches:
                case = InferCase("gpu", use_gpu, batch, precision, use_tensorrt=trt)
                reason = gpu_rule(trt, precision, quant)
                if reason is None and not gpu_available:
                    reason = NO_GPU
                yield case, reason


def cpu_skip_rule(mkldnn: str, precision: str, quant: bool) -> str | None:
    if mkldnn == "False" and precision == "fp16":
        return f"fp16 on CPU needs mkldnn (enable_mkldnn={mkldnn})"
    if quant and precision != "int8":
        return f"quant model on CPU needs precision int8 (precision={precision})"
    return None


def gpu_skip_rule(trt: str, precision: str, quant: bool) -> str | None:
    # The bash matched substrings here (`=~`), exact strings on the CPU side.
    if not quant and "int8" in precision:
        return f"int8 on GPU needs a quant model (precision={precision})"
    if ("fp16" in precision or "int8" in precision) and trt == "False":
        return f"fp16/int8 on GPU needs TensorRT (use_tensorrt={trt}, precision={precision})"
    return None
