"""argv and legacy command text per stage, fragment order exactly as the bash's templates (docs/spec.md §3.5, §3.6)."""

from __future__ import annotations

from dataclasses import dataclass

from tipc.config.model import Field
from tipc.dialects.paddleocr.config.formats import SweepConfig
from tipc.plan.fragments import DROPPED, GAP, Command, Fragment, always_param, assemble, literal, set_param
from tipc.plan.model import InferCase, Topology
from tipc.plan.naming import launch_log_dir

AMP_OVERRIDES = ("Global.use_amp=True", "Global.scale_loss=1024.0", "Global.use_dynamic_loss_scaling=True")
# idx 48 (--save_log_path) is never emitted: the bash read its value from an unset variable (B11).
SAVE_LOG = DROPPED


@dataclass(frozen=True, slots=True)
class TrainArgs:
    """The resolved train overrides; a dropped one is ``DROPPED``."""

    use_gpu: Fragment
    save: Fragment
    epoch: Fragment
    pretrain: Fragment
    batch: Fragment
    amp: Fragment
    param1: Fragment


def amp_fragment(autocast: str) -> Fragment:
    """Only the literal ``amp`` adds overrides; other autocast values only label directories."""
    return literal(*AMP_OVERRIDES) if autocast == "amp" else DROPPED


def launch_fragment(topology: Topology, save: str, host: str | None = None, start_port: int | None = None) -> Fragment:
    """``-m paddle.distributed.launch`` with its options; worker logs go next to the save dir."""
    options = []
    if topology.kind == "multi_node":
        options.append(f"--ips={','.join(topology.ips)}")
    if topology.devices:
        options.append(f"--gpus={','.join(topology.devices)}")
    else:
        options.append(f"--nproc_per_node={topology.nproc}")
    if topology.kind == "multi_node" and host:
        options.append(f"--host={host}")
    if start_port is not None:
        options.append(f"--start_port={start_port}")
    options.append(f"--log_dir={launch_log_dir(save)}")
    return literal("-m", "paddle.distributed.launch", *options)


def train_command(python: Fragment, script: Fragment, args: TrainArgs, topology: Topology, launch: Fragment) -> Command:
    """Single process, one-node launch, or multi-node launch (pretrain before epoch there, as the bash)."""
    tail = (GAP, args.batch, args.amp, args.param1)
    if not topology.launches:
        head = (python, script, args.use_gpu, GAP, args.save, args.epoch, args.pretrain)
    elif topology.kind == "multi_node":
        head = (python, launch, script, args.use_gpu, args.save, args.pretrain, args.epoch)
    else:
        head = (python, launch, script, args.use_gpu, args.save, args.epoch, args.pretrain)
    return assemble(head + tail)


def eval_command(
    python: Fragment, script: Fragment, weights: Fragment, use_gpu: Fragment, param1: Fragment, log: str
) -> Command:
    return assemble((python, script, weights, use_gpu, param1), log)


def export_command(python: Fragment, script: Fragment, weights: Fragment, save_dir: Fragment, log: str) -> Command:
    return assemble((python, script, weights, save_dir), log)


def infer_command(
    python: Fragment,
    script: Fragment,
    config: SweepConfig,
    case: InferCase,
    model_dir: Fragment,
    image_dir: Fragment,
    log: str,
) -> Command:
    path = config.path

    def param(field: Field, value: str | None) -> Fragment:
        return set_param(field.key, value, path, field)

    # The device flag is written without func_set_params: it is always emitted.
    use_gpu = always_param(config.infer_use_gpu.key, case.use_gpu, path, config.infer_use_gpu)
    batch = param(config.batch_size, case.batch_size)
    precision = param(config.precision, case.precision)
    benchmark = param(config.benchmark, config.benchmark.value)
    param1 = param(config.infer_param1, config.infer_param1.value)
    parts: tuple[Fragment, ...]
    if case.device == "cpu":
        parts = (
            python,
            script,
            use_gpu,
            param(config.enable_mkldnn, case.enable_mkldnn),
            param(config.cpu_threads, case.cpu_threads),
            model_dir,
            batch,
            SAVE_LOG,
            image_dir,
            benchmark,
            precision,
            param1,
        )
    else:
        parts = (
            python,
            script,
            use_gpu,
            param(config.use_tensorrt, case.use_tensorrt),
            precision,
            model_dir,
            batch,
            image_dir,
            benchmark,
            param1,
            SAVE_LOG,
        )
    return assemble(parts, log)
