"""PaddleGAN: ``<model>/train_infer_python.txt`` (and the long ``train_linux_gpu_normal_amp_…`` names) read and
planned as PaddleGAN's ``test_tipc/test_train_inference_python.sh`` runs them.

Read by position, a value stopping at its next colon. The trainer is ``tools/main.py -c <yml> … -o``, followed by
bare ``key=value`` words: ``output_dir=<save>``, ``total_iters``/``epochs`` and ``dataset.train.batch_size`` by
mode; ``fp16`` adds ``--amp --amp_level=O2``; no device word (its lines 4 and 5 keys are never read); a launch
takes ``--gpus=``. Every stage after the first train runs with ``FLAGS_cudnn_deterministic=True`` (the bash
exports it before each train). The eval and the export read ``<save>/<train_model_name>``, which is a shell pattern
(``edvr_m_wo_tsa*/*checkpoint.pdparams``: the trainer writes into a dated folder): the export takes it as a
positional word after the line's ``--load``, then ``--output_dir <save>`` as two words. The predictor
(``tools/inference.py``) gets ``--device=<value> --model_path=<save>/<inference_dir>``, and on a GPU cell the
line's other set options. ``whole_infer`` sweeps each ``train_model`` (entry 36); every other mode runs the
training branch, ``klquant_whole_infer`` included (its mode items match nothing: no iteration or batch word).
"""

from __future__ import annotations

import shlex

from tipc import Chain, InferCase, Mode, Plan, PlanOptions, PythonCheck, Skipped, Stage, StageKind
from tipc.dialects.paddlegan.devices import DEVICES
from tipc.layout import (
    DROPPED,
    NULL,
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
    dirname,
    draft,
    env_of,
    infer_models,
    infer_stages,
    inside,
    literal,
    name_part,
    on_path,
    output_dir,
    param,
    suite_config,
    tag_words,
    text,
    train_cells,
    whole_infer_device,
)

NAME = "PaddleGAN"
TRAIN_MODES = (
    Mode.LITE_TRAIN_LITE_INFER,
    Mode.LITE_TRAIN_WHOLE_INFER,
    Mode.WHOLE_TRAIN_WHOLE_INFER,
    Mode.KLQUANT_WHOLE_INFER,
)
MODES = (*TRAIN_MODES, Mode.WHOLE_INFER)
FP16 = ("--amp", "--amp_level=O2")
DETERMINISTIC = {"FLAGS_cudnn_deterministic": "True"}
CUDA_VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES"
MODEL_NAME_FLAG = "--model_name"  # the export's file prefix, when its line names one


def load(path: str) -> SuiteConfig:
    return suite_config(NAME, path, BashLines.read(path), "colon_value")


def modes(config: SuiteConfig) -> tuple[Mode, ...]:
    del config  # every config runs in the same modes
    return MODES


def tags(file_name: str) -> tuple[str, ...]:
    return tag_words(file_name)


def build(config: SuiteConfig, options: PlanOptions, check: PythonCheck = on_path) -> Plan:
    mode = options.mode
    plan = draft(config, options, output_dir(options.output_root, config.model_name.value, mode), check)
    cfg = Entries(config.lines, mode)
    if mode is Mode.WHOLE_INFER:
        _infer_chains(plan, cfg)
    else:
        _train_chains(plan, cfg)
    return plan.plan()


def _train_chains(plan: PlanDraft, cfg: Entries) -> None:
    pattern = cfg.value(10)
    if _is_pattern(pattern):
        plan.notes.append(
            f"train_model_name '{pattern}' is a shell pattern: the bash's shell expands it to the checkpoints the "
            "train wrote; tipc runs no shell and passes it as written (docs/suites.md, PaddleGAN)"
        )
    if plan.options.device == "cpu":
        plan.notes.append(
            "device cpu: PaddleGAN's trainer and export take no device word; every gpu entry trains as one process, "
            "each stage with CUDA_VISIBLE_DEVICES empty so that Paddle sees no GPU"
        )
    for cell in train_cells(plan, cfg):
        _train_chain(plan, cfg, cell.entry, cell.autocast, cell.trainer)


def _launch_option(device: str) -> str:
    """``--gpus``, or the option a device script's edit of the main script renames it to (``--npus``)."""
    variant = DEVICES.get(device)
    return variant.launch_devices if variant is not None and variant.launch_devices else "--gpus"


def _trainer(cfg: Entries, trainer: str) -> Fragment:
    """The norm trainer's line, with the to-static section's words for its trainer (the bash knows no other)."""
    static = cfg.lines.header_index("to_static_train_benchmark_params") or 0
    if trainer == cfg.key(static):
        return cfg.script(15, f"{cfg.value(15)}  {cfg.value(static)}")
    return cfg.script(15)


def _train_chain(plan: PlanDraft, cfg: Entries, entry: GpuEntry, autocast: str, trainer: str) -> None:
    options = plan.options
    nodes = entry.nodes
    chain = f"{trainer}-gpus_{entry.gpus}-{autocast}" + (f"-nodes_{nodes}" if nodes > 1 else "")
    script = _trainer(cfg, trainer)
    if script.text == NULL:
        plan.skipped.append(Skipped(chain, f"trainer '{trainer}': its train script is null"))
        return
    stem = name_part(f"{trainer}_gpus_{entry.gpus}_autocast_{autocast}")
    save = f"{plan.output_dir}/{component(stem + (f'_nodes_{nodes}' if nodes > 1 else ''))}"
    logs = f"{plan.output_dir}/{component(f'{stem}_nodes_{nodes}')}"
    amp = literal(*FP16) if autocast == "fp16" else DROPPED
    body = [cfg.path(7, save), cfg.by_mode(6), cfg.param(9), cfg.by_mode(8), amp, cfg.param(12)]
    devices = f"{_launch_option(options.device)}={entry.gpus}"
    python = plan.interpreter
    if entry.single or entry.cpu:
        train = command(python, script, *body)
    elif nodes == 1:
        train = command(
            python,
            literal("-m", "paddle.distributed.launch", devices),
            script,
            *body,
        )
    else:
        body[1], body[2] = body[2], body[1]  # pretrain before the iterations, as the bash writes it
        launch = literal("-m", "paddle.distributed.launch", f"--ips={entry.ips}", devices)
        train = command(python, launch, script, *body)
    train_env = _env(entry, StageKind.TRAIN, options)
    weights = inside(plan.config, save, Role.TRAIN_MODEL_NAME)
    # A pattern names no one file; a path (the train's dated folder, given with --set) is the train's to write, so
    # a later run can export from it with the train deselected.
    written = () if _is_pattern(cfg.value(10)) else (weights,)
    train_stage = plan.stage(chain, "train", StageKind.TRAIN, train, train_env, f"{save}.log", outputs=written)
    stages = [train_stage]
    rank0 = nodes > 1
    if cfg.value(23) != NULL:
        evaluate = command(python, cfg.script(23), cfg.path(9, weights), cfg.param(24))
        env = _env(entry, StageKind.EVAL, options)
        log = f"{logs}_eval.log"
        stages.append(
            plan.stage(chain, "eval", StageKind.EVAL, evaluate, env, log, requires=(train_stage.id,), rank0_only=rank0)
        )
    export_script = cfg.value(29)
    if export_script in (NULL, ""):
        plan.skipped.append(Skipped(f"{chain}::export", "export script is null: nothing to infer with"))
        plan.chains.append(Chain(chain, trainer, autocast, entry.topology, save, tuple(stages)))
        return
    # The weights are a word of their own (no key), the pattern kept whole.
    export = command(python, cfg.script(29), Fragment(weights, (weights,)), _output_dir(cfg, save))
    export_stage = plan.stage(
        chain,
        "export",
        StageKind.EXPORT,
        export,
        _env(entry, StageKind.EXPORT, options),
        f"{logs}_export.log",
        requires=(train_stage.id,),
        outputs=_export_outputs(export_script, save),
        rank0_only=rank0,
    )
    stages.append(export_stage)
    inference_dir = cfg.value(35)
    model_dir = save if inference_dir in (NULL, "##", "") else inside(plan.config, save, Role.INFERENCE_DIR)
    env = _env(entry, StageKind.INFER, options)
    stages.extend(_sweep(plan, cfg, Target(chain, model_dir, cfg.value(11), "False", env, (export_stage.id,))))
    plan.chains.append(Chain(chain, trainer, autocast, entry.topology, save, tuple(stages)))


def _env(entry: GpuEntry, kind: StageKind, options: PlanOptions) -> dict[str, str | None]:
    """tipc's rule, with the deterministic flag the bash exports before each train; on a CPU run no GPU visible
    (PaddleGAN's trainer and export take no device word)."""
    hidden = {CUDA_VISIBLE_DEVICES: ""} if options.device == "cpu" else {}
    return {**env_of(entry, kind, options), **DETERMINISTIC, **hidden}


def _output_dir(cfg: Entries, save: str) -> Fragment:
    """``${save_infer_key} ${save}``: the key (``--output_dir``) as the shell splits it, then the path whole."""
    key = text(cfg.key(27), cfg.lines, 27)
    return Fragment(f"{key.text} {save}", (*key.argv, save))


def _is_pattern(value: str) -> bool:
    """Whether the bash's shell would expand this word as a pattern."""
    return any(c in value for c in "*?[")


def _export_outputs(export_script: str, save: str) -> tuple[str, ...]:
    """``<save>/<name>.pdiparams`` when the export line names its file prefix (``--model_name inference``)."""
    try:
        words = shlex.split(export_script)
    except ValueError:
        return ()
    if MODEL_NAME_FLAG in words[:-1]:
        prefix = words[words.index(MODEL_NAME_FLAG) + 1]
        return (f"{save}/{component(name_part(prefix), '.pdiparams')}",)
    return ()


def _infer_chains(plan: PlanDraft, cfg: Entries) -> None:
    """whole_infer: each ``train_model`` (entry 36), exported first where its ``infer_export`` says, then swept
    (with no quant flag: the bash passes none)."""
    env, topology = whole_infer_device(plan.options)
    for count, (chain, model, export, _) in enumerate(infer_models(cfg)):
        stages: list[Stage] = []
        model_dir = model
        if export not in (NULL, ""):
            model_dir = dirname(model)
            weights = param(cfg.value(28), model, cfg.lines, 28)  # the bash takes line 28's value as the key
            run = command(plan.interpreter, text(export, cfg.lines, 37), weights, _output_dir(cfg, model_dir))
            log = f"{plan.output_dir}_export_{count}.log"
            stages.append(plan.stage(chain, "export", StageKind.EXPORT, run, env, log))
        stages.extend(_sweep(plan, cfg, Target(chain, model_dir, cfg.value(47), "", env, tuple(s.id for s in stages))))
        plan.chains.append(Chain(chain, "", "", topology, "", tuple(stages)))


def _sweep(plan: PlanDraft, cfg: Entries, target: Target) -> list[Stage]:
    """func_inference: a CPU cell passes the device and the model only (every cell the same command, each with its
    log); a GPU cell the line's set options too (its benchmark word is never read)."""
    model = cfg.path(46, target.model_dir)
    found: list[tuple[InferCase, str, Command]] = []
    for cell in cells(cfg, target.quant, _cpu_dropped, plan_device=plan.options.device):
        case = cell.case
        options: tuple[Fragment, ...] = (model,)
        if case.device == "gpu":
            options = (
                cfg.param(44, case.use_tensorrt), cfg.param(45, case.precision), model,
                cfg.param(43, case.batch_size), param(cfg.key(47), target.data, cfg.lines, 47), cfg.param(50),
            )  # fmt: skip
        run = command(plan.interpreter, cfg.script(39), cell.device, *options)
        found.append((case, f"python_infer_{case.device}_{cell.name}.log", run))
    return infer_stages(plan, target.chain, found, target.env, target.requires)


def _cpu_dropped(mkldnn: str, precision: str, quant: str) -> bool:
    """Only a quantized model without mkldnn (the precision is not looked at)."""
    del precision
    return mkldnn == "False" and quant == "True"
