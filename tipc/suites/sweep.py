"""The loops every suite's ``func_inference`` and ``whole_infer`` branch share, for a dialect to build its commands on.

The common layout's sweep walks the ``use_gpu`` line (entry 40) in order: a CPU value runs mkldnn × threads × batch
× precision (entries 41, 42, 43, 45), a GPU value TensorRT × precision × batch (44, 45, 43); each suite drops some
of those cells by its own rules and spells its commands and logs its own way. ``whole_infer`` walks the
``infer_model`` line (entry 36) with its ``infer_export`` and ``infer_quant`` items by position, every stage on the
device the bash's third argument names (``whole_infer_device``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from itertools import product

from tipc.plan.devices import CPU_VALUES, accelerator_values
from tipc.plan.env import whole_infer_env
from tipc.plan.fragments import Fragment
from tipc.plan.model import InferCase, PlanOptions, Topology
from tipc.suites.bash import Entries, ifs_fields, raw_param
from tipc.suites.plans import CPU_ENTRY

# (mkldnn or TensorRT, precision, quant flag) -> the suite's bash skips that cell
Dropped = Callable[[str, str, str], bool]


@dataclass(frozen=True, slots=True)
class Target:
    """What one sweep infers with: its chain, the model folder, the data (the train's or whole_infer's line), the
    model's quant flag as the bash passes it ("" for none), and the stages' environment and prerequisites."""

    chain: str
    model_dir: str
    data: str
    quant: str
    env: Mapping[str, str | None]
    requires: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Cell:
    case: InferCase
    device: Fragment  # ``<use_gpu key>=<value>``, as the bash writes it (never dropped)
    name: str  # usemkldnn_…_threads_…_precision_…_batchsize_… or usetrt_…_precision_…_batchsize_…


def cpu_dropped(mkldnn: str, precision: str, quant: str) -> bool:
    """The common bash's CPU rule: fp16 or a quantized model only with mkldnn, a quantized model only in int8."""
    return (mkldnn == "False" and (quant == "True" or precision == "fp16")) or (quant == "True" and precision != "int8")


def gpu_dropped(trt: str, precision: str, quant: str) -> bool:
    """The common bash's GPU rule: int8 only for a quantized model (``True``; an unset flag drops nothing),
    fp16 and int8 only with TensorRT, a quantized model only with TensorRT and not in int8."""
    int8, fp16 = "int8" in precision, "fp16" in precision
    return (
        (quant == "False" and int8)
        or ((fp16 or int8) and trt == "False")
        or ((trt == "False" or int8) and quant == "True")
    )


def cells(
    cfg: Entries,
    quant: str,
    cpu_rule: Dropped = cpu_dropped,
    gpu_rule: Dropped = gpu_dropped,
    plan_device: str = "gpu",
) -> Iterator[Cell]:
    """Every cell the sweep runs, in the bash's order; a use_gpu value that is neither CPU nor the plan's
    device's accelerator word (``accelerator_values``) runs none."""
    accelerator = accelerator_values(plan_device)
    mkldnns, threads_list, batches, trts, precisions = (ifs_fields(cfg.value(i), "|") for i in range(41, 46))
    for use_gpu in ifs_fields(cfg.value(40), "|"):
        device = raw_param(cfg.key(40), use_gpu, cfg.lines, 40)
        if use_gpu in CPU_VALUES:
            for mkldnn, threads, batch, precision in product(mkldnns, threads_list, batches, precisions):
                if not cpu_rule(mkldnn, precision, quant):
                    case = InferCase("cpu", use_gpu, batch, precision, mkldnn, threads)
                    name = f"usemkldnn_{mkldnn}_threads_{threads}_precision_{precision}_batchsize_{batch}"
                    yield Cell(case, device, name)
        elif use_gpu in accelerator:
            for trt, precision, batch in product(trts, precisions, batches):
                if not gpu_rule(trt, precision, quant):
                    case = InferCase("gpu", use_gpu, batch, precision, use_tensorrt=trt)
                    yield Cell(case, device, f"usetrt_{trt}_precision_{precision}_batchsize_{batch}")


def infer_models(cfg: Entries) -> Iterator[tuple[str, str, str, str]]:
    """whole_infer's models: (chain id, infer_model, its infer_export, its infer_quant), "" past a list's end."""
    exports, quants = ifs_fields(cfg.value(37), "|"), ifs_fields(cfg.value(38), "|")
    for count, model in enumerate(ifs_fields(cfg.value(36), "|")):
        export = exports[count] if count < len(exports) else ""
        quant = quants[count] if count < len(quants) else ""
        yield f"infer_model_{count}", model, export, quant


def whole_infer_device(options: PlanOptions) -> tuple[dict[str, str | None], Topology]:
    """whole_infer's environment and topology: CPU only on a CPU run, else the GPU the bash's third argument names
    (``whole_infer_gpu``; none: the caller's own)."""
    gpu = options.whole_infer_gpu
    env = whole_infer_env(gpu, options.device == "cpu")
    if options.device == "cpu":
        return env, Topology("cpu", CPU_ENTRY)
    return env, Topology("gpu", gpu or "0", (gpu or "0",))
