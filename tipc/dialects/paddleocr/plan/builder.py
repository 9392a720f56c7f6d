"""``build_plan``: the loops of docs/spec.md §3.2/§3.3 turned into chains, with every silent skip listed.

A KL quantization config (``PtqConfig``) gets the chains of ``test_ptq_inference_python.sh`` instead
(``ptq``): one per model, as whole_infer's. A paddle2onnx config (``Paddle2OnnxConfig``) gets the chain of its
suite's ``test_paddle2onnx.sh`` (``paddle2onnx``).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from tipc.config.bounds import MAX_STAGES, excerpt, read_bounded
from tipc.config.model import Field, TipcConfig
from tipc.dialects.paddleocr.config.formats import AnyConfig, SweepConfig, check_mode
from tipc.dialects.paddleocr.config.paddle2onnx import Paddle2OnnxConfig
from tipc.dialects.paddleocr.config.ptq import PtqConfig
from tipc.dialects.paddleocr.config.values import mode_value, paired
from tipc.dialects.paddleocr.plan.chains import Built, ConfigT, Context, train_chain, whole_infer_chain
from tipc.dialects.paddleocr.plan.ptq import ptq_chain, ptq_notes
from tipc.dialects.paddleocr.plan.sweep import sweep_size
from tipc.dialects.paddleocr.plan.trainers import resolve_trainer
from tipc.errors import ConfigError
from tipc.plan.fragments import literal
from tipc.plan.golden import with_golden
from tipc.plan.interpreter import PythonCheck, on_path, resolve_python
from tipc.plan.lists import distinct_values
from tipc.plan.model import Chain, Plan, PlanOptions, Skipped, StageKind, Topology
from tipc.plan.naming import output_dir, train_chain_id, train_infer_prefix, whole_infer_chain_id
from tipc.plan.topology import CPU_ENTRY, classify, on_cpu, parse_topology, with_ips

_TRAIN_STAGES = 3  # train, eval, export: the stages of a chain before its infer cases
CPU_NOTE = (
    "device cpu: training runs as CPU processes (launch --nproc_per_node instead of --gpus), "
    "train use_gpu is False, GPU inference cases are skipped, CUDA_VISIBLE_DEVICES is removed"
)


def cpu_process_notes(chains: Sequence[Chain]) -> list[str]:
    """What turning GPU ids into CPU processes costs: one note per ``gpu_list`` entry that became
    several processes on this node, each holding the model and its data loader."""
    entries = dict.fromkeys(
        (c.topology.gpu_label, c.topology.nproc)
        for c in chains
        if c.topology.nproc > 1 and not c.topology.devices
        and any(t.startswith("--nproc_per_node=") for s in c.stages for t in s.argv)
    )  # fmt: skip
    return [
        f"device cpu: gpu_list {label} trains as {n} CPU processes on this node (--nproc_per_node={n}): each "
        f"holds the model and its data loader, so that training needs about {n}× the memory of one process"
        for label, n in entries
    ]


@dataclass(frozen=True, slots=True)
class _Draft:
    """A chain that can be rebuilt with an infer-log prefix when its logs would clash with another's."""

    prefix: str
    build: Callable[[str], Built]


def build_plan(config: AnyConfig, options: PlanOptions, python_check: PythonCheck = on_path) -> Plan:
    """Pure apart from checking the config's interpreter (``python_check``: on PATH by default; the
    fronts pass ``tipc.run.probe.runs`` to also run it) and hashing the config file."""
    check_mode(config, options.mode)
    python, python_note = resolve_python(config.python, options.python, python_check)
    if isinstance(config, Paddle2OnnxConfig):
        return _paddle2onnx_plan(config, options, python, python_note)
    _check_size(config, options.mode)
    log_path = output_dir(options.output_root, config.model_name.value, options.mode, options.node_rank)
    notes = [python_note, *options.notes, *config.notes]
    if options.device == "cpu":
        notes.append(CPU_NOTE)
    skipped: list[Skipped] = []
    if isinstance(config, PtqConfig):
        notes.extend(ptq_notes(config))
        ptq = Context(config, options, literal(python), log_path, None, None)
        drafts = _whole_infer_drafts(ptq, skipped, ptq_chain)
    elif options.mode == "whole_infer":
        ctx = Context(config, options, literal(python), log_path, None, None)
        drafts = _whole_infer_drafts(ctx, skipped, whole_infer_chain)
    elif options.mode == "benchmark_train":
        from tipc.dialects.paddleocr.plan.benchmark import benchmark_chains  # only this mode's plans need it

        runs, dropped = benchmark_chains(config, options, literal(python), log_path, notes)
        skipped.extend(dropped)
        drafts = [_Draft("", partial(_as_built, b)) for b in runs]
    else:
        epoch = _mode_value(config, config.epoch, options.mode, notes)
        batch = _mode_value(config, config.train_batch, options.mode, notes)
        ctx = Context(config, options, literal(python), log_path, epoch, batch)
        drafts = _train_drafts(ctx, skipped, notes)
    built = _settle_infer_logs(drafts, notes)
    chains = tuple(b.chain for b in built)
    if options.device == "cpu":
        notes.extend(cpu_process_notes(chains))
    # benchmark_train measures speed on edited configs (eval and export nulled): nothing to hold to a golden.
    if options.golden_dir and options.mode != "benchmark_train":
        chains = tuple(with_golden(c, log_path, options.golden_dir) for c in chains)
    if isinstance(config, TipcConfig):  # other chains are numbered
        _check_unique(config, [c.id for c in chains])
    skipped.extend(s for b in built for s in b.skipped)
    return Plan(
        config_path=config.path,
        model=config.model_name.value,
        mode=options.mode,
        cwd=options.repo,
        output_dir=log_path,
        python=python,
        chains=chains,
        skipped=tuple(skipped),
        notes=tuple(notes),
        config_sha256=_sha256(config.path),
    )


def _paddle2onnx_plan(config: Paddle2OnnxConfig, options: PlanOptions, python: str, python_note: str) -> Plan:
    from tipc.dialects.paddleocr.plan.paddle2onnx import STATUS_LOG, paddle2onnx_plan  # only this mode's plans need it

    built = paddle2onnx_plan(config, options, python)
    return Plan(
        config_path=config.path,
        model=config.model_name.value,
        mode=options.mode,
        cwd=options.repo,
        output_dir=built.output_dir,
        python=python,
        chains=built.chains,
        skipped=built.skipped,
        notes=(python_note, *options.notes, *config.notes, *built.notes),
        config_sha256=_sha256(config.path),
        status_log=STATUS_LOG,
        status_tail=built.status_tail,
    )


def _as_built(built: Built, _prefix: str) -> Built:
    """A benchmark chain has no infer logs to prefix."""
    return built


def _mode_value(config: TipcConfig, field: Field, mode: str, notes: list[str]) -> str | None:
    resolved = mode_value(field, mode, config.path)
    where = f"{field.key} (line {field.line})"
    if resolved.fallback_from:
        notes.append(f"{mode}: {where} has no {mode} value; using the {resolved.fallback_from} value {resolved.value}")
    elif resolved.value is None and not field.is_null:
        notes.append(f"{mode}: {where} has no value for this mode; the override is dropped (the yml's value applies)")
    return resolved.value


def _train_drafts(ctx: Context[TipcConfig], skipped: list[Skipped], notes: list[str]) -> list[_Draft]:
    config, options = ctx.config, ctx.options
    topologies = [
        parse_topology(entry, config.gpu_list, config.path) for entry in distinct_values(config.gpu_list, config.path)
    ]
    if options.ips:
        if not any(t.kind == "multi_node" for t in topologies):
            notes.append(f"--ips ignored: no {config.gpu_list.key} entry (line {config.gpu_list.line}) is multi-node")
        topologies = [with_ips(t, options.ips) for t in topologies]
    if options.device == "cpu":
        topologies = [on_cpu(t) for t in topologies]
    use_gpu_values = config.train_use_gpu.values()
    drafts = []
    for index, topology in enumerate(topologies):
        use_gpu = paired(use_gpu_values, index)
        for autocast in distinct_values(config.autocast, config.path):
            for name in distinct_values(config.trainer, config.path):
                trainer = resolve_trainer(config, name)
                if trainer.skip_reason:
                    skipped.append(Skipped(train_chain_id(name, topology, autocast), trainer.skip_reason))
                    continue
                drafts.append(
                    _Draft(
                        train_infer_prefix(name, topology, autocast),
                        partial(train_chain, ctx, topology, use_gpu, autocast, trainer),
                    )
                )
    return drafts


def _whole_infer_drafts(
    ctx: Context[ConfigT], skipped: list[Skipped], chain: Callable[[Context[ConfigT], int, str, Topology, str], Built]
) -> list[_Draft]:
    """One ``chain`` per model of the infer_model line: whole_infer's, or the PTQ script's."""
    field = ctx.config.infer_model
    if field.is_null:
        skipped.append(Skipped("infer_model", f"{field.key} (line {field.line}) is null: no model to infer with"))
        return []
    topology = _whole_infer_topology(ctx.options)
    models = distinct_values(field, ctx.config.path)
    return [
        _Draft(f"{whole_infer_chain_id(k)}_", partial(chain, ctx, k, model, topology)) for k, model in enumerate(models)
    ]


def _whole_infer_topology(options: PlanOptions) -> Topology:
    """Names follow the GPU whole_infer runs on; without one, the bash's label ``0`` (devices unknown)."""
    if options.device == "cpu":
        return Topology("cpu", CPU_ENTRY)
    gpu = options.whole_infer_gpu
    if not gpu:
        return Topology("gpu", "0")
    return classify(gpu, tuple(gpu.split(",")), ())


def _settle_infer_logs(drafts: list[_Draft], notes: list[str]) -> list[Built]:
    """Build every chain; rebuild with a prefix those whose infer logs would overwrite another chain's (B12)."""
    built = [d.build("") for d in drafts]
    counts = Counter(s.log for b in built for s in b.chain.stages if s.kind is StageKind.INFER)
    clashing = [
        i for i, b in enumerate(built) if any(counts[s.log] > 1 for s in b.chain.stages if s.kind is StageKind.INFER)
    ]
    for i in clashing:
        built[i] = drafts[i].build(drafts[i].prefix)
    if clashing:
        names = ", ".join(f"{built[i].chain.id} ({drafts[i].prefix}…)" for i in clashing)
        notes.append(
            f"infer logs would overwrite each other (the bash's names lack trainer/autocast/model); prefixed: {names}"
        )
    return built


def _check_size(config: SweepConfig, mode: str) -> None:
    """Refuse lists that multiply past ``MAX_STAGES`` before one stage is made (planning them would hang)."""
    per_chain = _TRAIN_STAGES + sweep_size(config)
    chain_lists = (
        (config.infer_model,)
        if isinstance(config, PtqConfig) or mode == "whole_infer"
        else (config.gpu_list, config.autocast, config.trainer)
    )
    chains = math.prod(len(field.values()) for field in chain_lists)
    if chains * per_chain <= MAX_STAGES:
        return
    sweep_lists = (
        config.infer_use_gpu,
        config.enable_mkldnn,
        config.cpu_threads,
        config.batch_size,
        config.use_tensorrt,
        config.precision,
    )
    longest = max((*chain_lists, *sweep_lists), key=lambda field: len(field.values()))
    raise ConfigError(
        config.path,
        longest.line,
        f"the '|' lists multiply to up to {chains * per_chain} stages "
        f"({chains} chains of up to {per_chain} stages), over the limit of "
        f"{MAX_STAGES}: expected shorter lists (the longest: "
        f"'{excerpt(longest.key)}' with {len(longest.values())} values)",
    )


def _check_unique(config: TipcConfig, chain_ids: list[str]) -> None:
    repeated = [cid for cid, n in Counter(chain_ids).items() if n > 1]
    if repeated:
        field = config.gpu_list
        raise ConfigError(
            config.path,
            field.line,
            f"{field.key}: two entries name the same runs "
            f"({excerpt(repeated[0])}); expected entries with distinct GPU sets",
        )


def _sha256(path: str) -> str:
    """The config file's hash; "" when ``path`` is no readable config (text parsed without a file)."""
    try:
        return hashlib.sha256(read_bounded(path)).hexdigest()
    except ConfigError:
        return ""
