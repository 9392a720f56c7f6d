"""PaddleSpeech's ``tests/test_tipc/test_train_inference_python.sh``, read and planned: for every config in every
mode, the commands that bash runs. Its checkout, for tipc, is ``tests/``: the bash runs from there and the
configs name the code as ``../paddlespeech/…``.

What differs from the common layout: only the first 51 physical lines are read (``awk 'NR==1, NR==51'``); the
epoch and batch-size lines are ``mode=value`` items (a plain value passes nothing); the sweep's data is entry
11 (``train_infer_img_dir``) after a train, entry 47 in whole_infer; a launch takes ``--gpus=``; the bash
trains a ``gpu_list`` entry on one node when its address part is 26 characters or shorter (two short addresses
included), where tipc launches over the nodes it names (docs/suites.md); ``amp`` adds ``Global.use_amp=True
Global.scale_loss=1024.0 Global.use_dynamic_loss_scaling=True``. The published configs name no eval, export nor
inference; their ``norm_export: null`` (with a space) makes the bash run ``<python> null`` as an export, which tipc
reads as null. ``klquant_whole_infer`` re-reads the config split at colons and runs nonsense, so tipc does not offer it.
"""

from __future__ import annotations

from tipc import Chain, InferCase, Mode, Plan, PlanOptions, PythonCheck, Skipped, Stage, StageKind
from tipc.layout import (
    DROPPED,
    BashLines,
    Command,
    Entries,
    GpuEntry,
    PlanDraft,
    Role,
    SuiteConfig,
    Target,
    cells,
    command,
    component,
    draft,
    env_of,
    infer_models,
    infer_stages,
    inside,
    literal,
    name_part,
    output_dir,
    param,
    suite_config,
    train_cells,
    whole_infer_device,
)

NULL = "null"  # the configs' word for an unset value
NAME = "PaddleSpeech"
TRAIN_MODES = (Mode.LITE_TRAIN_LITE_INFER, Mode.LITE_TRAIN_WHOLE_INFER, Mode.WHOLE_TRAIN_WHOLE_INFER)
READ_LINES = 51  # the bash reads no further
AMP = ("Global.use_amp=True", "Global.scale_loss=1024.0", "Global.use_dynamic_loss_scaling=True")
INFERENCE = 39


def load(path: str) -> SuiteConfig:
    lines = BashLines.read(path)
    kept = sum(1 for number in lines.numbers if number <= READ_LINES)
    return suite_config(NAME, path, BashLines(path, lines.texts[:kept], lines.numbers[:kept]), "colon_value")


def _null(value: str) -> bool:
    return value.strip() in (NULL, "")


def modes(config: SuiteConfig) -> tuple[Mode, ...]:
    """The training modes, and whole_infer where an inference script is named (else the bash runs nothing)."""
    return TRAIN_MODES if _null(Entries(config.lines).value(INFERENCE)) else (*TRAIN_MODES, Mode.WHOLE_INFER)


def build(config: SuiteConfig, options: PlanOptions, check: PythonCheck) -> Plan:
    mode = options.mode
    plan = draft(config, options, output_dir(options.output_root, config.model_name.value, mode), check)
    cfg = Entries(config.lines, mode)
    if mode in TRAIN_MODES:
        for cell in train_cells(plan, cfg):
            _train_chain(plan, cfg, cell.entry, cell.use_gpu, cell.autocast, cell.trainer)
    else:
        _infer_chains(plan, cfg)
    return plan.plan()


def _trainer(cfg: Entries, trainer: str) -> tuple[str, str, bool]:
    """The bash's trainer choice, first match wins: (train script, export script, quantized)."""
    for train, export in ((16, 30), (17, 31), (18, 32), (19, 33), (20, 34)):
        if trainer == cfg.key(train):
            return cfg.value(train), cfg.value(export), train == 16
    return cfg.value(15), cfg.value(29), False


def _train_chain(
    plan: PlanDraft, cfg: Entries, entry: GpuEntry, use_gpu_value: str, autocast: str, trainer: str
) -> None:
    options = plan.options
    machines = entry.machines
    chain = f"{trainer}-gpus_{entry.gpus}-{autocast}" + (f"-nodes_{entry.nodes}" if machines else "")
    script, export_script, quant = _trainer(cfg, trainer)
    if _null(script):
        plan.skipped.append(Skipped(chain, f"trainer '{trainer}': its train script is null"))
        return
    stem = f"{trainer}_gpus_{entry.gpus}_autocast_{autocast}" + (f"_nodes_{entry.nodes}" if machines else "")
    save = f"{plan.output_dir}/{component(name_part(stem))}"
    use_gpu = cfg.param(4, use_gpu_value)
    epoch, pretrain = cfg.by_mode(6), cfg.param(9)
    body = [
        use_gpu,
        cfg.path(7, save),
        *((pretrain, epoch) if machines else (epoch, pretrain)),
        cfg.param(5, autocast),
        cfg.by_mode(8),
        cfg.param(12),
        literal(*AMP) if autocast == "amp" else DROPPED,
    ]
    run = cfg.script(15, script)
    python = plan.interpreter
    if entry.single or entry.cpu:
        train = command(python, run, *body)
    else:
        ips = (f"--ips={entry.ips}",) if machines else ()
        train = command(python, literal("-m", "paddle.distributed.launch", *ips, f"--gpus={entry.gpus}"), run, *body)
    name = cfg.value(10)
    weights = inside(plan.config, save, Role.TRAIN_MODEL_NAME)
    kept = () if _null(name) or _null(cfg.key(7)) else (weights,)
    env = env_of(entry, StageKind.TRAIN, options)
    train_stage = plan.stage(chain, "train", StageKind.TRAIN, train, env, f"{save}.log", outputs=kept)
    stages = [train_stage]
    rank0 = machines
    if not _null(cfg.value(23)):
        evaluate = command(python, cfg.script(23), cfg.path(9, weights), use_gpu, cfg.param(24))
        stages.append(
            plan.stage(chain, "eval", StageKind.EVAL, evaluate, env_of(entry, StageKind.EVAL, options),
                       f"{save}_eval.log", requires=(train_stage.id,), rank0_only=rank0)
        )  # fmt: skip
    if _null(export_script):
        plan.skipped.append(Skipped(f"{chain}::export", "export script is null: nothing to infer with"))
        plan.chains.append(Chain(chain, trainer, autocast, entry.topology, save, tuple(stages)))
        return
    export = command(python, cfg.script(29, export_script), cfg.path(28, weights), cfg.path(27, save))
    export_stage = plan.stage(
        chain, "export", StageKind.EXPORT, export, env_of(entry, StageKind.EXPORT, options), f"{save}_export.log",
        requires=(train_stage.id,), rank0_only=rank0,
    )  # fmt: skip
    stages.append(export_stage)
    folder = save if cfg.value(35) in (NULL, "##") else inside(plan.config, save, Role.INFERENCE_DIR)
    env = env_of(entry, StageKind.INFER, options)
    stages.extend(_sweep(plan, cfg, Target(chain, folder, cfg.value(11), str(quant), env, (export_stage.id,))))
    plan.chains.append(Chain(chain, trainer, autocast, entry.topology, save, tuple(stages)))


def _infer_chains(plan: PlanDraft, cfg: Entries) -> None:
    """whole_infer: each ``infer_model`` exported into itself (unless its ``infer_export`` is null), then swept."""
    env, topology = whole_infer_device(plan.options)
    for chain, model, export, quant in infer_models(cfg):
        stages: list[Stage] = []
        if not _null(export):
            run = command(plan.interpreter, cfg.script(37, export), cfg.param(28, model), cfg.param(27, model))
            log = f"{plan.output_dir}/{chain}_export.log"
            stages.append(plan.stage(chain, "export", StageKind.EXPORT, run, env, log))
        requires = tuple(s.id for s in stages)
        stages.extend(_sweep(plan, cfg, Target(chain, model, cfg.value(47), quant, env, requires)))
        plan.chains.append(Chain(chain, "", "", topology, "", tuple(stages)))


def _sweep(plan: PlanDraft, cfg: Entries, target: Target) -> list[Stage]:
    """func_inference on the target's folder: each cell of the common CPU rule and this bash's GPU rule, as it
    spells its command and log."""
    model, images = cfg.param(46, target.model_dir), param(cfg.key(47), target.data, cfg.lines, 47)
    found: list[tuple[InferCase, str, Command]] = []
    for cell in cells(cfg, target.quant, gpu_rule=_gpu_dropped, plan_device=plan.options.device):
        case, device = cell.case, cell.device
        if case.device == "cpu":
            run = command(
                plan.interpreter, cfg.script(INFERENCE), device, cfg.param(41, case.enable_mkldnn),
                cfg.param(42, case.cpu_threads), model, cfg.param(43, case.batch_size), cfg.param(48), images,
                cfg.param(49), cfg.param(45, case.precision), cfg.param(50),
            )  # fmt: skip
        else:
            run = command(
                plan.interpreter, cfg.script(INFERENCE), device, cfg.param(44, case.use_tensorrt),
                cfg.param(45, case.precision), model, cfg.param(43, case.batch_size), images, cfg.param(49),
                cfg.param(50), cfg.param(48),
            )  # fmt: skip
        found.append((case, f"python_infer_{case.device}_{cell.name}.log", run))
    return infer_stages(plan, target.chain, found, target.env, target.requires)


def _gpu_dropped(trt: str, precision: str, quant: str) -> bool:
    """PaddleSpeech's GPU skips: int8 only for a quantized model, fp16 and int8 only with TensorRT (a quantized
    model's int8 without TensorRT is already skipped by that)."""
    int8, fp16 = "int8" in precision, "fp16" in precision
    return (quant == "False" and int8) or ((fp16 or int8) and trt == "False")
