"""PaddleVideo's ``test_tipc/test_train_inference_python.sh``, read and planned: for every config in every mode,
the commands that bash runs.

What differs from PaddleSeg's layout: the lite modes append ``--max_iters=30`` to the trainer; ``whole_train``
drops the epoch, batch size and both extra train lines; ``fp16`` puts ``--amp --amp_level O2`` before the
trainer's overrides; eval and export take ``<save>/<model>_epoch_00001.pdparams`` (``PP-`` spelled ``pp``, as the
bash's ``${model_name/PP-/pp}``); the lite-infer eval repeats the first extra train line as ``key=value``; the
predictor gets ``<model folder>/<model_file>`` and ``<model folder>/<params_file>``. A pact or fpgm trainer
starts from no weights: the bash never sets the norm weights it means to pass. ``klquant_whole_infer`` runs
nothing (the bash re-reads the config with a broken ``awk`` pattern), so tipc does not offer it.
"""

from __future__ import annotations

import posixpath

from tipc import Chain, InferCase, Mode, Plan, PlanOptions, PythonCheck, Skipped, Stage, StageKind
from tipc.layout import (
    DROPPED,
    BashLines,
    Command,
    Entries,
    Fragment,
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
    raw_param,
    suite_config,
    train_cells,
    whole_infer_device,
)

NULL = "null"  # the configs' word for an unset value
NAME = "PaddleVideo"
TRAIN_MODES = (Mode.LITE_TRAIN_LITE_INFER, Mode.LITE_TRAIN_WHOLE_INFER, Mode.WHOLE_TRAIN_WHOLE_INFER)
MAX_ITERS = "--max_iters=30"  # the lite modes' short training
FP16 = ("--amp", "--amp_level", "O2")
WEIGHTS = "_epoch_00001.pdparams"  # what the bash evaluates and exports: the first epoch's checkpoint
INFERENCE = 39
PACT = 16


def load(path: str) -> SuiteConfig:
    return suite_config(NAME, path, BashLines.read(path), "colon_value")


def modes(config: SuiteConfig) -> tuple[Mode, ...]:
    """The training modes, and whole_infer where an inference script is named (else the bash runs nothing)."""
    infers = Entries(config.lines).value(INFERENCE).strip() not in (NULL, "")
    return (*TRAIN_MODES, Mode.WHOLE_INFER) if infers else TRAIN_MODES


def build(config: SuiteConfig, options: PlanOptions, check: PythonCheck) -> Plan:
    mode = options.mode
    plan = draft(config, options, output_dir(options.output_root, config.model_name.value, mode), check)
    cfg = Entries(config.lines, mode)
    if mode in TRAIN_MODES:
        _train_chains(plan, cfg)
    else:
        _infer_chains(plan, cfg)
    return plan.plan()


def _train_chains(plan: PlanDraft, cfg: Entries) -> None:
    for cell in train_cells(plan, cfg):
        _train_chain(plan, cfg, cell.entry, cell.use_gpu, cell.autocast, cell.trainer)


def _trainer(cfg: Entries, trainer: str) -> tuple[str, str, bool]:
    """The bash's trainer choice, first match wins: (train script, export script, quantized)."""
    static = cfg.lines.header_index("to_static_train_benchmark_params") or 0
    for train, export in ((16, 30), (17, 31), (18, 32), (19, 29), (20, 34)):
        if trainer == cfg.key(train):
            return cfg.value(train), cfg.value(export), train == PACT
    if trainer == cfg.key(static):
        return f"{cfg.value(15)}  {cfg.value(static)}", cfg.value(29), False
    return cfg.value(15), cfg.value(29), False


def _train_chain(
    plan: PlanDraft, cfg: Entries, entry: GpuEntry, use_gpu_value: str, autocast: str, trainer: str
) -> None:
    options, mode = plan.options, plan.options.mode
    chain = f"{trainer}-gpus_{entry.gpus}-{autocast}" + (f"-nodes_{entry.nodes}" if entry.machines else "")
    script, export_script, quant = _trainer(cfg, trainer)
    if script.strip() == NULL:
        plan.skipped.append(Skipped(chain, f"trainer '{trainer}': its train script is null"))
        return
    whole_train = mode is Mode.WHOLE_TRAIN_WHOLE_INFER
    if not whole_train:
        script = f"{script} {MAX_ITERS}"
    stem = name_part(f"{trainer}_gpus_{entry.gpus}_autocast_{autocast}_nodes_{entry.nodes}")
    save = f"{plan.output_dir}/{component(stem)}"  # the bash's save folder, and its logs' stem
    use_gpu = cfg.param(4, use_gpu_value)
    epoch = DROPPED if whole_train else cfg.param(6)
    pretrain = DROPPED if trainer in (cfg.key(16), cfg.key(17)) and not entry.machines else cfg.param(9)
    extras = [DROPPED] * 3 if whole_train else [cfg.param(8), cfg.param(12), cfg.param(11)]
    body: list[Fragment] = [
        literal(*FP16) if autocast == "fp16" else DROPPED,
        use_gpu,
        cfg.path(7, save),
        *((pretrain, epoch) if entry.machines else (epoch, pretrain)),
        *extras,
    ]
    run = cfg.script(15, script)
    python = plan.interpreter
    if entry.single or entry.cpu:
        train = command(python, run, *body)
    else:
        ips = (f"--ips={entry.ips}",) if entry.machines else ()
        train = command(
            python, literal("-B", "-m", "paddle.distributed.launch", *ips, f"--devices={entry.gpus}"), run, *body
        )
    weights = f"{save}/{component(name_part(plan.config.model_name.value.replace('PP-', 'pp', 1)), WEIGHTS)}"
    env = env_of(entry, StageKind.TRAIN, options)
    train_stage = plan.stage(chain, "train", StageKind.TRAIN, train, env, f"{save}.log", outputs=(weights,))
    stages = [train_stage]
    rank0 = entry.machines
    eval_script = cfg.value(23)
    if eval_script.strip() != NULL:
        lite_extra = mode is Mode.LITE_TRAIN_LITE_INFER and cfg.key(12) != NULL
        extra = raw_param(cfg.key(12), cfg.value(12), cfg.lines, 12) if lite_extra else DROPPED
        evaluate = command(python, cfg.script(23), use_gpu, cfg.path(24, weights), extra)
        stages.append(
            plan.stage(chain, "eval", StageKind.EVAL, evaluate, env_of(entry, StageKind.EVAL, options),
                       f"{save}_eval.log", requires=(train_stage.id,), rank0_only=rank0)
        )  # fmt: skip
    if export_script.strip() == NULL:
        plan.skipped.append(Skipped(f"{chain}::export", "export script is null: nothing to infer with"))
        plan.chains.append(Chain(chain, trainer, autocast, entry.topology, save, tuple(stages)))
        return
    export = command(python, cfg.script(29, export_script), cfg.path(28, weights), cfg.path(27, save))
    export_stage = plan.stage(
        chain, "export", StageKind.EXPORT, export, env_of(entry, StageKind.EXPORT, options), f"{save}_export.log",
        requires=(train_stage.id,), outputs=_exported(plan.config, save), rank0_only=rank0,
    )  # fmt: skip
    stages.append(export_stage)
    env = env_of(entry, StageKind.INFER, options)
    stages.extend(
        _sweep(plan, cfg, Target(chain, save, cfg.value(47), str(quant), env, (export_stage.id,)), entry.gpus)
    )
    plan.chains.append(Chain(chain, trainer, autocast, entry.topology, save, tuple(stages)))


def _exported(config: SuiteConfig, folder: str) -> tuple[str, ...]:
    """The params file the predictor loads (written whichever program format the export uses)."""
    return () if config.value(Role.INFER_PARAM1) in (NULL, "") else (inside(config, folder, Role.INFER_PARAM1),)


def _infer_chains(plan: PlanDraft, cfg: Entries) -> None:
    """whole_infer: each ``infer_model`` exported (unless its ``infer_export`` is null) into its own folder, then
    the sweep on that folder; the bash passes no gpu to the sweep's log names."""
    env, topology = whole_infer_device(plan.options)
    for count, (chain, model, export, quant) in enumerate(infer_models(cfg)):
        stages: list[Stage] = []
        folder = model
        if export.strip() not in (NULL, ""):
            folder = posixpath.dirname(model.rstrip("/")) or "."
            run = command(plan.interpreter, cfg.script(37, export), cfg.param(28, model), cfg.param(27, folder))
            log = f"{plan.output_dir}_export_{count}.log"
            stages.append(
                plan.stage(chain, "export", StageKind.EXPORT, run, env, log, outputs=_exported(plan.config, folder))
            )
        requires = tuple(s.id for s in stages)
        stages.extend(_sweep(plan, cfg, Target(chain, folder, cfg.value(47), quant, env, requires), ""))
        plan.chains.append(Chain(chain, "", "", topology, "", tuple(stages)))


def _sweep(plan: PlanDraft, cfg: Entries, target: Target, gpu: str) -> list[Stage]:
    """func_inference on the target's folder: each cell of the common rules, as this bash spells its command and
    log (``gpu``: the train's entry in the log names, none in whole_infer)."""
    folder = target.model_dir
    model = param(cfg.key(46), inside(plan.config, folder, Role.MODEL_DIR), cfg.lines, 46)
    data = (param(cfg.key(47), target.data, cfg.lines, 47), cfg.param(49))
    params = param(cfg.key(50), inside(plan.config, folder, Role.INFER_PARAM1), cfg.lines, 50)
    found: list[tuple[InferCase, str, Command]] = []
    for cell in cells(cfg, target.quant, plan_device=plan.options.device):
        case, device = cell.case, cell.device
        if case.device == "cpu":
            run = command(
                plan.interpreter, cfg.script(INFERENCE), device, raw_param(cfg.key(41), str(case.enable_mkldnn),
                cfg.lines, 41), cfg.param(42, case.cpu_threads), model, cfg.param(43, case.batch_size), *data,
                cfg.param(45, case.precision), params,
            )  # fmt: skip
        else:
            run = command(
                plan.interpreter, cfg.script(INFERENCE), device, cfg.param(44, case.use_tensorrt),
                cfg.param(45, case.precision), model, cfg.param(43, case.batch_size), *data, params,
            )  # fmt: skip
        found.append((case, f"python_infer_{case.device}_gpus_{gpu}_{cell.name}.log", run))
    return infer_stages(plan, target.chain, found, target.env, target.requires)
