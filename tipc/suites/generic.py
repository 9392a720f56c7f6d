"""The generic dialect: a checkout whose ``test_tipc/`` follows the common layout, with no dialect of its own, planned
as the common ``test_train_inference_python.sh`` runs it (docs/spec.md §3).

Every suite's script reads its config by position (``tipc.suites.layout.Role``) and builds the same commands from
it: the train loop over gpu entries × autocast values × trainers (the trainer dispatch of §3.4), eval and export of
``<save>/<train_model_name>``, and the inference sweep of §3.6 on ``<save>`` (or ``<save>/<inference_dir>``);
whole_infer exports and sweeps each ``infer_model``. What a suite's own script does beyond that (its own
overrides, file names, extra lines) is what a dialect of its own is for: the plan's first note says the generic
dialect planned it, and names the lines it could not place (sections and entries the common script never reads).
"""

from __future__ import annotations

from typing import Any

from tipc.config.bounds import excerpt
from tipc.config.model import NULL
from tipc.config.modes import Mode
from tipc.files.write import component, name_part
from tipc.plan.fragments import Command, Fragment, literal
from tipc.plan.interpreter import PythonCheck, on_path
from tipc.plan.model import Chain, InferCase, Plan, PlanOptions, Skipped, Stage, StageKind
from tipc.plan.naming import output_dir
from tipc.suites.bash import HEADER_PREFIX, BashLines, Entries, dirname, mode_param
from tipc.suites.dialect import Dialect
from tipc.suites.layout import Role
from tipc.suites.plans import (
    GpuEntry,
    PlanDraft,
    SuiteConfig,
    command,
    draft,
    env_of,
    infer_stages,
    inside,
    suite_config,
    train_cells,
)
from tipc.suites.sweep import Target, cells, infer_models, whole_infer_device
from tipc.suites.tags import model_tags

NAME = "generic"
MODES = (Mode.LITE_TRAIN_LITE_INFER, Mode.LITE_TRAIN_WHOLE_INFER, Mode.WHOLE_TRAIN_WHOLE_INFER, Mode.WHOLE_INFER)
# The sections the common script reads: train_params, eval_params, infer_params (entries 0 to 50).
SECTIONS = ("train_params", "eval_params", "infer_params")
LAST_ENTRY = Role.INFER_PARAM1
SAID = (
    "suite generic: no dialect recognises this checkout, so its configs are planned as the common "
    "test_train_inference_python.sh runs them (docs/suites.md, 'Suites without a dialect')"
)


def load(path: str) -> SuiteConfig:
    lines = BashLines.read(path)
    return suite_config(NAME, path, lines, "colon_value", (_placed_note(lines),))


def _placed_note(lines: BashLines) -> str:
    """What the note says: the generic dialect, and the sections and entries the common script never reads."""
    unplaced: list[str] = []
    in_unread = False  # inside a section the common script never reads: the section is named, not its lines
    for index in range(len(lines.texts)):
        text = lines.text(index)
        if text.startswith(HEADER_PREFIX):
            name = text.strip("=").strip()
            in_unread = name not in SECTIONS
            if in_unread:
                unplaced.append(f"section '{excerpt(name)}' (line {lines.line(index)})")
        elif index > LAST_ENTRY and not in_unread and lines.colon_key(index) not in (NULL, ""):
            unplaced.append(f"'{excerpt(lines.colon_key(index))}' (line {lines.line(index)})")
    if not unplaced:
        return f"{SAID}; every line is one it reads"
    shown = ", ".join(unplaced[:5]) + (f" and {len(unplaced) - 5} more" if len(unplaced) > 5 else "")
    return f"{SAID}; not placed, so not planned: {shown}"


def modes(config: SuiteConfig) -> tuple[Mode, ...]:
    del config  # the common script runs every config in the same modes
    return MODES


def build(config: SuiteConfig, options: PlanOptions, check: PythonCheck = on_path) -> Plan:
    mode = options.mode
    plan = draft(config, options, output_dir(options.output_root, config.model_name.value, mode), check)
    cfg = Entries(config.lines, mode)
    if mode == Mode.WHOLE_INFER:
        _infer_chains(plan, cfg)
    else:
        for cell in train_cells(plan, cfg):
            _train_chain(plan, cfg, cell.entry, cell.use_gpu, cell.autocast, cell.trainer)
    return plan.plan()


def _trainer(cfg: Entries, trainer: str) -> tuple[Fragment, str, bool]:
    """§3.4, first match wins: (train script, export script, quantized)."""
    for train, export in ((Role.PACT_TRAIN, Role.QUANT_EXPORT), (Role.FPGM_TRAIN, Role.FPGM_EXPORT),
                          (Role.DISTILL_TRAIN, Role.DISTILL_EXPORT)):  # fmt: skip
        if trainer == cfg.key(train):
            return cfg.script(train), cfg.value(export), train is Role.PACT_TRAIN
    static = cfg.lines.header_index("to_static_train_benchmark_params")
    if static is not None and trainer == cfg.key(static + 1):
        joined = f"{cfg.value(Role.NORM_TRAIN)}  {cfg.value(static + 1)}"
        return cfg.script(Role.NORM_TRAIN, joined), cfg.value(Role.NORM_EXPORT), False
    if trainer == cfg.key(Role.CUSTOM_TRAIN):
        return cfg.script(Role.CUSTOM_TRAIN), cfg.value(Role.EXPORT2), False
    return cfg.script(Role.NORM_TRAIN), cfg.value(Role.NORM_EXPORT), False


def _train_chain(
    plan: PlanDraft, cfg: Entries, entry: GpuEntry, use_gpu_value: str, autocast: str, trainer: str
) -> None:
    options, python = plan.options, plan.interpreter
    chain = f"{trainer}-gpus_{entry.gpus}-{autocast}" + (f"-nodes_{entry.nodes}" if entry.machines else "")
    script, export_script, quant = _trainer(cfg, trainer)
    if script.text.strip() == NULL:
        plan.skipped.append(Skipped(chain, f"trainer '{trainer}': its train script is null"))
        return
    nodes = f"_nodes_{entry.nodes}" if entry.machines else ""  # §4.3: a single node's folder names no nodes
    stem = f"{trainer}_gpus_{entry.gpus}_autocast_{autocast}{nodes}"
    save = f"{plan.output_dir}/{component(name_part(stem))}"
    use_gpu = cfg.param(Role.USE_GPU, use_gpu_value)
    epoch, pretrain = _by_mode(cfg, Role.EPOCH), cfg.param(Role.PRETRAIN)
    body = [
        use_gpu,
        cfg.path(Role.SAVE_DIR, save),
        *((pretrain, epoch) if entry.machines else (epoch, pretrain)),
        cfg.param(Role.AUTOCAST, autocast),
        _by_mode(cfg, Role.TRAIN_BATCH),
        cfg.param(Role.TRAIN_PARAM1),
    ]
    if entry.single or entry.cpu:
        train = command(python, script, *body)
    else:
        ips = (f"--ips={entry.ips}",) if entry.machines else ()
        train = command(python, literal("-m", "paddle.distributed.launch", *ips, f"--gpus={entry.gpus}"), script, *body)
    env = env_of(entry, StageKind.TRAIN, options)
    train_stage = plan.stage(chain, "train", StageKind.TRAIN, train, env, f"{save}.log")
    stages: list[Stage] = [train_stage]
    weights = f"{save}/{component(name_part(_mode_value(cfg, Role.TRAIN_MODEL_NAME)))}"
    if cfg.value(Role.EVAL).strip() != NULL:
        evaluate = command(python, cfg.script(Role.EVAL), cfg.path(Role.PRETRAIN, weights), use_gpu,
                           cfg.param(Role.EVAL_PARAM1))  # fmt: skip
        stages.append(
            plan.stage(chain, "eval", StageKind.EVAL, evaluate, env_of(entry, StageKind.EVAL, options),
                       f"{save}_eval.log", requires=(train_stage.id,), rank0_only=entry.machines)
        )  # fmt: skip
    if export_script.strip() == NULL:
        plan.skipped.append(Skipped(f"{chain}::export", "export script is null: nothing to infer with"))
        plan.chains.append(Chain(chain, trainer, autocast, entry.topology, save, tuple(stages)))
        return
    export = command(python, cfg.script(Role.NORM_EXPORT, export_script), cfg.path(Role.WEIGHTS, weights),
                     cfg.path(Role.SAVE_INFERENCE_DIR, save))  # fmt: skip
    export_stage = plan.stage(
        chain, "export", StageKind.EXPORT, export, env_of(entry, StageKind.EXPORT, options),
        f"{save}_export.log", requires=(train_stage.id,), rank0_only=entry.machines,
    )  # fmt: skip
    stages.append(export_stage)
    inference_dir = cfg.value(Role.INFERENCE_DIR)
    model_dir = save if inference_dir in (NULL, "##", "") else inside(plan.config, save, Role.INFERENCE_DIR)
    target = Target(chain, model_dir, cfg.value(Role.TRAIN_INFER_IMG), str(quant),
                    env_of(entry, StageKind.INFER, options), (export_stage.id,))  # fmt: skip
    stages.extend(_sweep(plan, cfg, target, entry.gpus))
    plan.chains.append(Chain(chain, trainer, autocast, entry.topology, save, tuple(stages)))


def _mode_value(cfg: Entries, role: Role) -> str:
    """A line's value for this mode: its ``<mode>=<value>`` item (``lite_train_lite_infer=2|…``, none for a mode it
    leaves out), or its one value where the line has no items, as the scripts that read such lines with
    ``func_parser_value`` do."""
    value = cfg.value(role)
    return mode_param(cfg.lines.text(role), cfg.mode) if "=" in value else value


def _by_mode(cfg: Entries, role: Role) -> Fragment:
    return cfg.param(role, _mode_value(cfg, role))


def _infer_chains(plan: PlanDraft, cfg: Entries) -> None:
    """§3.2: each ``infer_model``, exported first where its ``infer_export`` is not null, then swept."""
    env, topology = whole_infer_device(plan.options)
    for count, (chain, model, export, quant) in enumerate(infer_models(cfg)):
        stages: list[Stage] = []
        model_dir = model
        if export.strip() not in (NULL, ""):
            model_dir = dirname(model)  # the weights' folder gets the exported model, as the newer scripts write it
            run = command(plan.interpreter, cfg.script(Role.INFER_EXPORT, export), cfg.param(Role.WEIGHTS, model),
                          cfg.param(Role.SAVE_INFERENCE_DIR, model_dir))  # fmt: skip
            log = f"{plan.output_dir}_export_{count}.log"
            stages.append(plan.stage(chain, "export", StageKind.EXPORT, run, env, log))
        target = Target(chain, model_dir, cfg.value(Role.IMAGE_DIR), quant, env, tuple(s.id for s in stages))
        stages.extend(_sweep(plan, cfg, target, "0"))
        plan.chains.append(Chain(chain, "", "", topology, "", tuple(stages)))


def _sweep(plan: PlanDraft, cfg: Entries, target: Target, gpu: str) -> list[Stage]:
    """§3.6: CPU cells pass mkldnn, threads, the model, batch, data, benchmark, precision and the extra line; GPU
    cells TensorRT, precision, the model, batch, data, benchmark and the extra line."""
    if cfg.value(Role.INFERENCE).strip() == NULL:
        line = cfg.lines.line(Role.INFERENCE)
        plan.skipped.append(Skipped(f"{target.chain}::infer", f"the inference script (line {line}) is null"))
        return []
    model = cfg.path(Role.MODEL_DIR, target.model_dir)
    data = (cfg.param(Role.IMAGE_DIR, target.data), cfg.param(Role.BENCHMARK))
    found: list[tuple[InferCase, str, Command]] = []
    for cell in cells(cfg, target.quant, plan_device=plan.options.device):
        case = cell.case
        options: tuple[Fragment, ...]
        if case.device == "cpu":
            options = (cfg.param(Role.ENABLE_MKLDNN, case.enable_mkldnn or ""),
                       cfg.param(Role.CPU_THREADS, case.cpu_threads), model,
                       cfg.param(Role.BATCH_SIZE, case.batch_size), *data,
                       cfg.param(Role.PRECISION, case.precision))  # fmt: skip
        else:
            options = (cfg.param(Role.USE_TENSORRT, case.use_tensorrt), cfg.param(Role.PRECISION, case.precision),
                       model, cfg.param(Role.BATCH_SIZE, case.batch_size), *data)  # fmt: skip
        run = command(plan.interpreter, cfg.script(Role.INFERENCE), cell.device, *options, cfg.param(Role.INFER_PARAM1))
        found.append((case, f"python_infer_{case.device}_gpus_{gpu}_{cell.name}.log", run))
    return infer_stages(plan, target.chain, found, target.env, target.requires)


DIALECT: Dialect[Any] = Dialect(
    NAME,
    (),  # never detected: the dialect of a checkout no other dialect recognises
    load,
    modes,
    build,
    tags=model_tags,
    description="the common test_train_inference_python.sh, for a suite with no dialect of its own",
)
