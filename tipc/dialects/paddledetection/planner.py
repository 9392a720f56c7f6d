"""PaddleDetection: ``<model>_train_infer_python.txt`` (and ``_train_pact_…``, fleet and AMP variants) read and
planned as PaddleDetection's ``test_train_inference_python.sh`` runs them.

What differs from PaddleOCR: a line's value is everything after its first colon; overrides are bare
``Key=value`` words after the yml's ``-o`` (``TrainReader.batch_size``, ``weights``); entry 10 is
``trained_model_name`` and the bash reads weights from ``<save>/<model>/<trained_model_name>`` (where PaddleDetection
2.7 and later write ``<save>/<trained_model_name>``: tipc reads the checkout's trainer); every command gets
``filename=<model>``; a single-process train adds ``LearningRate.base_lr=0.0001 log_iter=1``, a launch
``log_iter=1`` and ``--gpus=``; ``amp``/``fp16`` add ``--amp`` and ``amp_level=O1``/``O2``; an
``export_onnx`` line (entry 34) exports once more with ``export_onnx=True`` first; the predictor is
``deploy/python/infer.py`` with ``--run_mode`` for precision (CPU cells are ``mode_paddle``).
whole_infer and klquant_whole_infer export each ``infer_mode`` (entry 37: norm, pact, fpgm, distill,
kl_quant) from the ``weights`` line into the ``--output_dir`` line and sweep it; klquant_whole_infer only
``kl_quant``, whole_infer all the others.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from itertools import product

from tipc.config.benchmark import DeviceNum
from tipc.config.model import NULL
from tipc.config.modes import Mode
from tipc.files.read import contains
from tipc.files.write import component, name_part
from tipc.plan.devices import CPU_VALUES, VARIANT_DEVICES, accelerator_values
from tipc.plan.fragments import DROPPED, Command, Fragment, literal
from tipc.plan.interpreter import PythonCheck, on_path
from tipc.plan.model import Chain, InferCase, Plan, PlanOptions, Skipped, Stage, StageKind, Topology
from tipc.suites.bash import BashLines, Entries, ifs_fields, param, raw_param, text
from tipc.suites.benchmark import SECTION, TRAINER_REWRITE, Bench, Layout, Section, plan_runs
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
    refuse,
    suite_config,
    train_cells,
)
from tipc.suites.variants import Rewrite, Variant, yml_note

NAME = "PaddleDetection"


def _device(device: str) -> Variant:
    """PaddleDetection's test_train_inference_python_<device>.sh: no slim trainer on an NPU or XPU."""
    npu = device == "npu"
    return Variant(
        (
            Rewrite("use_gpu:True", f"use_{device}:True"),
            Rewrite("--device:gpu|cpu", f"--device:{device}|cpu"),
            *(
                (Rewrite("--device:gpu", "--device:npu"), Rewrite("--device:cpu|gpu", "--device:cpu|npu"))
                if npu
                else ()
            ),
            Rewrite("trainer:pact_train", "trainer:norm_train"),
            Rewrite("trainer:fpgm_train", "trainer:norm_train"),
            Rewrite("--slim_config _template_pact", " "),
            Rewrite("--slim_config _template_fpgm", " "),
            Rewrite("--slim_config _template_kl_quant", " "),
            *((Rewrite("python3.7", "python3.9"),) if npu else ()),
        ),
        notes=(
            yml_note(device, f"each trainer yml and the ymls it includes (use_gpu to use_{device}, aligned off)"),
            *(
                ("the npu script also swaps in a smaller COCO annotation file it downloads; tipc downloads nothing",)
                if npu
                else ()
            ),
        ),
    )


DEVICES = {device: _device(device) for device in VARIANT_DEVICES}
TRAIN_MODES = (Mode.LITE_TRAIN_LITE_INFER, Mode.LITE_TRAIN_WHOLE_INFER, Mode.WHOLE_TRAIN_WHOLE_INFER)
EXPORTS = {"norm": 29, "pact": 30, "fpgm": 31, "distill": 32, "kl_quant": 35}  # infer_mode -> its export line
INFER_MODES = 37
CUSTOM_OP_MODEL = "dino_r50_4scale_1x_coco"
CUSTOM_OP_SCRIPT = "setup_ms_deformable_attn_op.py"
CUSTOM_OP_NOTE = (
    f"{CUSTOM_OP_MODEL}: the bash builds and installs a custom operator into the interpreter "
    f"(cd ppdet/modeling/transformers/ext_op; python {CUSTOM_OP_SCRIPT} install) before each training; tipc "
    "does not change the environment it runs in: install it once before the run"
)
# PaddleDetection 2.7 and later save a training's weights in save_dir itself (its Checkpointer's line below), while
# the test_tipc bash still reads them from save_dir/<model>: tipc looks where the checkout's trainer writes.
CHECKPOINTER = "ppdet/engine/callbacks.py"
FLAT_SAVE = b"self.save_dir = self.model.cfg.save_dir\n"
FLAT_SAVE_NOTE = (
    f"the checkout's trainer saves its weights in save_dir itself ({CHECKPOINTER}), not in save_dir/<model> where "
    "the bash's eval and export look: tipc expects them there and hands that path to eval and export"
)
CPU_EXPORT_NOTE = (
    "device cpu: the export gets use_gpu=False as the trainings do (the bash gives it none, so it keeps the yml's "
    "use_gpu: true, which a CPU-only Paddle refuses)"
)


def load(path: str) -> SuiteConfig:
    return _read(path, BashLines.read(path))


def _read(path: str, lines: BashLines) -> SuiteConfig:
    return suite_config(NAME, path, lines, "first_colon_value")


def modes(config: SuiteConfig) -> tuple[Mode, ...]:
    infer_modes = ifs_fields(config.lines.first_colon_value(INFER_MODES), "|")
    found = list(TRAIN_MODES)
    if any(m not in (NULL, "kl_quant") for m in infer_modes):
        found.append(Mode.WHOLE_INFER)
    if "kl_quant" in infer_modes:
        found.append(Mode.KLQUANT_WHOLE_INFER)
    if config.lines.header_index(SECTION) is not None:  # test_tipc/benchmark_train.sh
        found.append(Mode.BENCHMARK_TRAIN)
    return tuple(found)


def build(config: SuiteConfig, options: PlanOptions, check: PythonCheck = on_path) -> Plan:
    mode = options.mode
    if mode not in modes(config):
        raise refuse(
            config,
            INFER_MODES,
            mode,
            f"PaddleDetection's bash runs nothing here: expected one of {', '.join(modes(config))}",
        )
    output = f"{options.output_root.rstrip('/')}/{component(name_part(config.model_name.value))}/{mode}"
    plan = draft(config, options, output, check)
    if mode in TRAIN_MODES:
        _train_chains(plan)
    elif mode is Mode.BENCHMARK_TRAIN:
        section = plan_runs(BENCH, config, plan)
        if not _full_data(config.model_name.value):
            plan.notes.append(_repeat_note(section, options))
    else:
        _infer_chains(plan, Entries(config.lines, mode, first_colon=True))
    return plan.plan()


def _train_chains(plan: PlanDraft) -> None:
    cfg = Entries(plan.config.lines, plan.options.mode, first_colon=True)
    if CUSTOM_OP_MODEL in plan.config.model_name.value:
        plan.notes.append(CUSTOM_OP_NOTE)
    if _flat_save(plan.options.repo):
        plan.notes.append(FLAT_SAVE_NOTE)
    if plan.options.device == "cpu":
        plan.notes.append(CPU_EXPORT_NOTE)
    if cfg.param(Role.PRETRAIN) is DROPPED:
        plan.notes.append(
            f"line {cfg.lines.line(Role.PRETRAIN)}: {cfg.key(Role.PRETRAIN)} is {cfg.value(Role.PRETRAIN) or 'empty'}, "
            "so the trainings get no pretrain_weights= (as in the bash) and PaddleDetection loads the yml's own "
            "pretrain_weights, a download when that is a URL: tipc does not read the yml when it plans"
        )
    for cell in train_cells(plan, cfg):
        _train_chain(plan, cfg, cell.entry, cell.autocast, cell.trainer)


def _flat_save(repo: str) -> bool:
    """Whether the checkout's trainer saves its weights in save_dir itself (no checkout: the bash's layout)."""
    try:
        return contains(os.path.join(repo, CHECKPOINTER), FLAT_SAVE)
    except OSError:
        return False


def _cpu_export(plan: PlanDraft, cfg: Entries) -> Fragment:
    """``use_gpu=False`` on a CPU run's export (the use_gpu line's key), nothing elsewhere, as in the bash."""
    return cfg.param(4, "False") if plan.options.device == "cpu" else DROPPED


def _trainer(plan: PlanDraft, cfg: Entries, trainer: str) -> tuple[Fragment, str, bool, Fragment] | None:
    """(train script, export script, quantized, to_static override) by the bash's tests, None: skipped."""
    static = plan.config.lines.header_index("to_static_train_benchmark_params") or 0
    table = [
        (cfg.key(15), 15, 29, False),
        (cfg.key(16), 16, 30, True),
        (cfg.key(17), 17, 31, False),
        (cfg.key(18), 18, 32, False),
        (cfg.key(19), 19, 33, False),
        (cfg.key(20), 20, 34, False),
    ]
    for key, train, export, quant in table:
        if trainer == key:
            return cfg.script(train), cfg.value(export), quant, DROPPED
    if trainer == cfg.key(static):
        return cfg.script(15), cfg.value(29), False, text(cfg.value(static), cfg.lines, static)
    return None


def _train_chain(plan: PlanDraft, cfg: Entries, entry: GpuEntry, autocast: str, trainer: str) -> None:
    chain = f"{trainer}-gpus_{entry.gpus}-{autocast}" + (f"-nodes_{entry.nodes}" if entry.machines else "")
    chosen = _trainer(plan, cfg, trainer)
    if chosen is None or chosen[0].text == NULL:
        plan.skipped.append(Skipped(chain, f"trainer '{trainer}': no train script of that name, or it is null"))
        return
    script, export_script, quant, to_static = chosen
    folder = component(name_part(plan.config.model_name.value))  # the trainer's filename=: one folder in save
    options = plan.options
    use_gpu = cfg.param(4, "False" if entry.cpu else cfg.value(4))
    stem = name_part(f"{trainer}_gpus_{entry.gpus}_autocast_{autocast}")
    save = f"{plan.output_dir}/{component(stem + (f'_nodes_{entry.nodes}' if entry.machines else ''))}"
    logs = f"{plan.output_dir}/{component(f'{stem}_nodes_{entry.nodes}')}"
    filename = param("filename", folder, cfg.lines, 1)
    amp = {"amp": ("--amp", "amp_level=O1"), "fp16": ("--amp", "amp_level=O2")}.get(autocast)
    benchmark = options.mode is Mode.BENCHMARK_TRAIN
    tail = (
        use_gpu, cfg.path(7, save), cfg.by_mode(6), cfg.param(9), cfg.by_mode(8), filename,
        literal("TrainReader.shuffle=False") if benchmark else DROPPED,
        literal(amp[1]) if amp else DROPPED,
        literal("--enable_ce=True") if benchmark else DROPPED,
        literal(amp[0]) if amp else DROPPED,
        to_static, cfg.param(12),
    )  # fmt: skip
    python = plan.interpreter
    if entry.single or entry.cpu:
        train = command(python, script, literal("LearningRate.base_lr=0.0001", "log_iter=1"), *tail)
    else:
        ips = (f"--ips={entry.ips}",) if entry.machines else ()
        launch = literal("-m", "paddle.distributed.launch", *ips, f"--gpus={entry.gpus}")
        train = command(python, launch, script, literal("log_iter=1"), *tail)
    weights = inside(plan.config, save if _flat_save(options.repo) else f"{save}/{folder}", Role.TRAIN_MODEL_NAME)
    train_stage = plan.stage(
        chain,
        "train",
        StageKind.TRAIN,
        train,
        env_of(entry, StageKind.TRAIN, options),
        f"{logs}.log",
        outputs=(weights,),
    )
    stages = [train_stage]
    rank0 = entry.machines
    if cfg.value(23) != NULL:
        evaluate = command(python, cfg.script(23), cfg.path(28, weights), use_gpu, cfg.param(24))
        stages.append(
            plan.stage(
                chain,
                "eval",
                StageKind.EVAL,
                evaluate,
                env_of(entry, StageKind.EVAL, options),
                f"{logs}_eval.log",
                requires=(train_stage.id,),
                rank0_only=rank0,
            )
        )
    if export_script == NULL:
        plan.skipped.append(Skipped(f"{chain}::export", "export script is null: nothing to infer with"))
        plan.chains.append(Chain(chain, trainer, autocast, entry.topology, save, tuple(stages)))
        return
    export_env = env_of(entry, StageKind.EXPORT, options)
    export_script_text = text(export_script, cfg.lines, 29)
    weights_arg, save_arg, cpu = cfg.path(28, weights), cfg.path(27, save), _cpu_export(plan, cfg)
    if cfg.key(34) == "export_onnx":
        onnx = command(python, export_script_text, weights_arg, filename, literal("export_onnx=True"), cpu, save_arg)
        stages.append(
            plan.stage(
                chain,
                "export_onnx",
                StageKind.EXPORT,
                onnx,
                export_env,
                f"{logs}_onnx_export.log",
                requires=(train_stage.id,),
                rank0_only=rank0,
            )
        )
    export = command(python, export_script_text, weights_arg, filename, cpu, save_arg)
    model_dir = f"{save}/{folder}"
    export_stage = plan.stage(
        chain,
        "export",
        StageKind.EXPORT,
        export,
        export_env,
        f"{logs}_export.log",
        requires=(train_stage.id,),
        outputs=(f"{model_dir}/model.pdiparams",),
        rank0_only=rank0,
    )
    stages.append(export_stage)
    env = env_of(entry, StageKind.INFER, options)
    stages.extend(_sweep(plan, cfg, chain, model_dir, cfg.value(11), str(quant), entry.gpus, env, (export_stage.id,)))
    plan.chains.append(Chain(chain, trainer, autocast, entry.topology, save, tuple(stages)))


def _infer_chains(plan: PlanDraft, cfg: Entries) -> None:
    """One chain per infer_mode the run's mode takes: export from the weights line, then the sweep."""
    quant_flags = ifs_fields(cfg.value(38), "|")
    count = 0
    klquant = plan.options.mode is Mode.KLQUANT_WHOLE_INFER
    cpu_only = plan.options.device == "cpu"
    env: dict[str, str | None] = {"CUDA_VISIBLE_DEVICES": None} if cpu_only else {}
    folder = component(name_part(plan.config.model_name.value))
    for infer_mode in ifs_fields(cfg.value(INFER_MODES), "|"):
        if infer_mode == NULL or klquant != (infer_mode == "kl_quant"):
            continue
        if infer_mode not in EXPORTS:
            raise refuse(
                plan.config,
                INFER_MODES,
                plan.options.mode,
                f"infer_mode '{infer_mode}' is none of "
                f"{', '.join(EXPORTS)}: the bash stops there ('Undefined infer_mode!')",
            )
        chain = f"infer_mode_{count}_{infer_mode}"
        export = command(
            plan.interpreter, text(cfg.value(EXPORTS[infer_mode]), cfg.lines, EXPORTS[infer_mode]),
            cfg.param(28), param("filename", folder, cfg.lines, 1), _cpu_export(plan, cfg), cfg.param(27),
        )  # fmt: skip
        model_dir = f"{cfg.value(27)}/{folder}"
        stage = plan.stage(
            chain,
            "export",
            StageKind.EXPORT,
            export,
            env,
            f"{plan.output_dir}/{chain}_export.log",
            outputs=(f"{model_dir}/model.pdiparams",),
        )
        quant = quant_flags[count] if count < len(quant_flags) else ""
        sweep = _sweep(plan, cfg, chain, model_dir, cfg.value(47), quant, "0", env, (stage.id,))
        topology = Topology("cpu", "-1") if cpu_only else Topology("gpu", "0", ("0",))
        plan.chains.append(Chain(chain, infer_mode, "", topology, "", (stage, *sweep)))
        count += 1


def _sweep(
    plan: PlanDraft,
    cfg: Entries,
    chain: str,
    model_dir: str,
    images: str,
    quant: str,
    gpu: str,
    env: Mapping[str, str | None],
    requires: tuple[str, ...],
) -> list[Stage]:
    """func_inference: CPU cells (mkldnn × threads × batch; without mkldnn none for a quantized model) and GPU
    cells (``--run_mode`` × batch: trt_int8 only for a quantized model, and only it)."""
    mkldnns, threads_list, batches = (ifs_fields(cfg.value(i), "|") for i in range(41, 44))
    tail = (param(cfg.key(47), images, cfg.lines, 47), cfg.param(49), cfg.param(50))
    found: list[tuple[InferCase, str, Command]] = []
    for use_gpu in ifs_fields(cfg.value(40), "|"):
        device = raw_param(cfg.key(40), use_gpu, cfg.lines, 40)
        if use_gpu in CPU_VALUES:
            for mkldnn, threads, batch in product(mkldnns, threads_list, batches):
                if mkldnn == "False" and quant == "True":
                    continue
                run = command(
                    plan.interpreter, cfg.script(39), device, raw_param(cfg.key(41), mkldnn, cfg.lines, 41),
                    cfg.param(42, threads), cfg.path(46, model_dir), cfg.param(43, batch), *tail,
                )  # fmt: skip
                cell = f"usemkldnn_{mkldnn}_threads_{threads}_mode_paddle_batchsize_{batch}"
                log = f"python_infer_cpu_gpus_{gpu}_{cell}.log"
                found.append((InferCase("cpu", use_gpu, batch, "paddle", mkldnn, threads), log, run))
        elif use_gpu in accelerator_values(plan.options.device):
            for precision, batch in product(ifs_fields(cfg.value(45), "|"), batches):
                int8 = precision == "trt_int8"
                if precision != "paddle" and ((quant == "False" and int8) or (quant == "True" and not int8)):
                    continue
                run = command(
                    plan.interpreter, cfg.script(39), device, cfg.param(45, precision), cfg.path(46, model_dir),
                    cfg.param(43, batch), *tail,
                )  # fmt: skip
                log = f"python_infer_gpu_gpus_{gpu}_mode_{precision}_batchsize_{batch}.log"
                found.append((InferCase("gpu", use_gpu, batch, precision), log, run))
    return infer_stages(plan, chain, found, env, requires)


# benchmark_train.sh trains these on the full data set for the section's epoch × the run's cards; every other
# model one epoch, its data sets' ``repeat`` set to the section's repeat × the cards.
FULL_DATA_MODELS = ("higherhrnet", "hrnet", "tinypose", "ppyoloe_r_crn_s_3x_spine_coco")
DATASET_FILES = tuple(f"configs/datasets/{name}.yml" for name in ("coco_detection", "coco_instance", "mot"))


def _full_data(model: str) -> bool:
    return any(name in model for name in FULL_DATA_MODELS)


def _times_cards(value: str, device: DeviceNum) -> str:
    """``expr VALUE \\* P``; a value that is not a number gives what expr prints: nothing."""
    return str(int(value) * device.cards) if value.strip().lstrip("-").isdigit() else ""


def _bench_epoch(model: str, section: Section, device: DeviceNum) -> str:
    return _times_cards(section.epoch, device) if _full_data(model) else "1"


def _repeat_note(section: Section, options: PlanOptions) -> str:
    """The script's edit of the checkout's data set files, which tipc does not make (it never edits the suite)."""
    selectors = options.benchmark.selectors
    device = next((s.device for s in selectors if s.batch_size is not None), BENCH.layout.devices[0])
    repeat = _times_cards(section.other("repeat"), device)
    return (
        f"benchmark_train: PaddleDetection's script also sets 'repeat: {repeat}' (the section's repeat × "
        f"{device.cards} cards) on line 10 of {', '.join(DATASET_FILES)} in the checkout before it trains one "
        "epoch; tipc does not edit the suite's files: set it there for the same amount of data per run"
    )


# benchmark_train.sh's edits of its config copy (physical lines), as PaddleSeg's script's; without PARAMS it
# runs N1C4 only, its section has a repeat line after the epoch, and its analysis step counts images/s.
BENCH = Bench(
    Layout(
        section=("batch_size", "fp_items", "epoch", "repeat", "profile", "flags"),
        by_mode=True,
        to_static=TRAINER_REWRITE,
        one_card_unit="images/s",
        first_colon=True,
    ),
    _read,
    _train_chains,
    _bench_epoch,
)
