"""PaddleClas: ``<Model>_train_infer_python.txt`` (``_train_amp_…``, ``_train_pact_…``, ``_train_ptq_…``, fleet
variants) read and planned as PaddleClas's ``test_train_inference_python.sh`` runs them.

What differs from PaddleOCR: trainer overrides are ``-o Key`` lines (``-o Global.device:gpu``); autocast is
always spelled out (``-o AMP.use_amp=False`` unless ``amp``/``fp16``); every train ends in
``-o Global.print_mem_info=True`` (a launch adds ``-o Global.log_ranks=0,…,7`` and takes ``--devices=``);
the bash evaluates and exports ``<save>/<model>/<train_model_name>`` (``RecModel`` for GeneralRecognition and
MetaBIN), where PaddleClas wrote its checkpoints before it wrote them into ``Global.output_dir`` itself: tipc plans
``<save>/<train_model_name>``, where the suite's own code writes them (a documented fix);
the output folder is absolute; inference runs from ``deploy/``. The epoch line's ``mode=value`` items are
never matched (the bash's ``func_parser_params`` is called without the mode), so every training mode trains
2 epochs. ``whole_infer`` runs only the ``kl_quant`` line (entry 33): the quantization, then the sweep on
``<infer_model>/quant_post_static_model``. ``klquant_whole_infer`` runs the training branch, as in the bash.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from itertools import product
from pathlib import PurePath

from tipc.config.model import NULL
from tipc.config.modes import Mode
from tipc.files.write import component, name_part
from tipc.plan.devices import CPU_VALUES, VARIANT_DEVICES, accelerator_values
from tipc.plan.fragments import DROPPED, Command, Fragment, literal
from tipc.plan.interpreter import PythonCheck, on_path
from tipc.plan.model import Chain, InferCase, Plan, PlanOptions, Skipped, Stage, StageKind
from tipc.suites.bash import BashLines, Entries, ifs_fields, raw_param
from tipc.suites.benchmark import SECTION, Bench, Layout, plan_runs
from tipc.suites.layout import Role
from tipc.suites.plans import (
    GpuEntry,
    PlanDraft,
    SuiteConfig,
    command,
    draft,
    env_of,
    gpu_entry,
    infer_stages,
    inside,
    refuse,
    suite_config,
    train_cells,
)
from tipc.suites.variants import Rewrite, Variant, yml_note

NAME = "PaddleClas"


def _model_folder(path: str, texts: tuple[str, ...]) -> str:
    """The script's model: the folder below ``configs/`` that holds the config (``cut -d / -f3`` of its path)."""
    del texts
    parts = PurePath(path).parts
    return parts[parts.index("configs") + 1] if "configs" in parts[:-1] else ""


def _device(device: str) -> Variant:
    """PaddleClas's test_train_inference_python_<device>.sh."""
    return Variant(
        (
            Rewrite("Global.device:gpu", f"Global.device:{device}"),
            Rewrite("Global.use_gpu", f"Global.use_{device}"),
            Rewrite("Global.use_tensorrt:True|False", "Global.use_tensorrt:False"),
            Rewrite("Global.save_interval=2", "Global.save_interval=1"),
            Rewrite("-o Global.epochs:lite_train_lite_infer=2", "-o Global.epochs:lite_train_lite_infer=1"),
            Rewrite("enable_mkldnn:True|False", "enable_mkldnn:False"),
            Rewrite("python3.7", "python3.9"),
            Rewrite("python3.10", "python3.9"),
            Rewrite("gpu_list:0|0,1", "gpu_list:0,1", ("PVTV2", "Twins", "SwinTransformer")),
        ),
        model_of=_model_folder,
        notes=(yml_note(device, f"the inference yml of deploy/ (use_gpu to use_{device}) and each trainer yml"),),
    )


DEVICES = {device: _device(device) for device in VARIANT_DEVICES}
DEFAULT_EPOCHS = "2"
# The bash exports these without weights: it sets the eval weights again where the export's belong.
REC_MODELS = ("GeneralRecognition", "MetaBIN_ResNet50")
FUSED_ATTN_MODELS = ("CLIP_vit_base_patch16_224", "SwinTransformer_base_patch4_window7_224_ampo2_ultra")
AMP = {
    "fp16": ("-o", "AMP.use_amp=True", "-o", "AMP.scale_loss=128", "-o", "AMP.use_dynamic_loss_scaling=True",
             "-o", "AMP.level=O2"),
    "amp": ("-o", "AMP.use_amp=True", "-o", "AMP.scale_loss=128", "-o", "AMP.use_dynamic_loss_scaling=True",
            "-o", "AMP.level=O1"),
}  # fmt: skip
LOG_RANKS = ("-o", "Global.log_ranks=0,1,2,3,4,5,6,7")
MODES = (
    Mode.LITE_TRAIN_LITE_INFER,
    Mode.LITE_TRAIN_WHOLE_INFER,
    Mode.WHOLE_TRAIN_WHOLE_INFER,
    Mode.WHOLE_INFER,
    Mode.KLQUANT_WHOLE_INFER,
)
KL_QUANT = 33
INFER_MODEL = 36


def load(path: str) -> SuiteConfig:
    return _read(path, BashLines.read(path))


def _read(path: str, lines: BashLines) -> SuiteConfig:
    return suite_config(NAME, path, lines, "colon_value")


def modes(config: SuiteConfig) -> tuple[Mode, ...]:
    """whole_infer only with a kl_quant line: without one, the bash runs nothing in it; benchmark_train with a
    train_benchmark_params section (test_tipc/benchmark_train.sh)."""
    found = tuple(m for m in MODES if m is not Mode.WHOLE_INFER or _kl_quant(config.lines))
    return (*found, Mode.BENCHMARK_TRAIN) if config.lines.header_index(SECTION) is not None else found


def _kl_quant(lines: BashLines) -> bool:
    return lines.colon_value(KL_QUANT) not in (NULL, "False", "")


def build(config: SuiteConfig, options: PlanOptions, check: PythonCheck = on_path) -> Plan:
    mode = options.mode
    if mode not in modes(config):
        raise refuse(
            config,
            KL_QUANT,
            mode,
            f"PaddleClas's bash runs nothing here (no kl_quant line): expected one of {', '.join(modes(config))}",
        )
    root = os.path.abspath(options.repo)  # the bash: LOG_PATH="$(pwd)/test_tipc/output/..."
    output_root = options.output_root if os.path.isabs(options.output_root) else os.path.join(root, options.output_root)
    output = f"{os.path.normpath(output_root)}/{component(name_part(config.model_name.value))}/{mode}"
    plan = draft(config, options, output, check)
    if mode is Mode.WHOLE_INFER:
        _kl_quant_chain(plan)
    elif mode is Mode.BENCHMARK_TRAIN:
        plan_runs(BENCH, config, plan)
    else:
        _train_chains(plan)
    return plan.plan()


def _train_chains(plan: PlanDraft) -> None:
    """The training branch: a chain per gpu entry × autocast × trainer."""
    cfg = Entries(plan.config.lines)
    model = plan.config.model_name.value
    cpu_only = plan.options.device == "cpu"
    if cpu_only:
        plan.notes.append(
            "device cpu: every gpu entry trains as one CPU process (-o Global.device=cpu, on the export too), "
            "GPU inference cases are skipped"
        )
    for cell in train_cells(plan, cfg):
        _train_chain(plan, cfg, cell.entry, cell.autocast, cell.trainer, model)


def _trainer(cfg: Entries, trainer: str) -> tuple[Fragment, str] | None:
    """(train script, export script) for a trainer name, in the bash's order of tests (PaddleClas's sweep does
    not look at quantization)."""
    norm = (cfg.script(15), cfg.value(29))
    if trainer == cfg.key(16):
        chosen = (cfg.script(16), cfg.value(30))
    elif trainer == cfg.key(17):
        chosen = (cfg.script(17), cfg.value(31))
    elif trainer == cfg.key(18):
        chosen = (cfg.script(18), cfg.value(32))
    elif trainer == cfg.key(19):
        both = f"{cfg.value(15)}  {cfg.value(19)}"
        chosen = (cfg.script(15, both), cfg.value(29))
    elif trainer == cfg.key(20):
        chosen = (cfg.script(20), cfg.value(34))
    else:
        chosen = norm
    return None if chosen[0].text == NULL else chosen


def _train_chain(plan: PlanDraft, cfg: Entries, entry: GpuEntry, autocast: str, trainer: str, model: str) -> None:
    chain = f"{trainer}-gpus_{entry.gpus}-{autocast}" + (f"-nodes_{entry.nodes}" if entry.machines else "")
    chosen = _trainer(cfg, trainer)
    if chosen is None:
        plan.skipped.append(Skipped(chain, f"trainer '{trainer}': its train script is null"))
        return
    script, export_script = chosen
    stem = component(name_part(f"{trainer}_gpus_{entry.gpus}_autocast_{autocast}_nodes_{entry.nodes}"))
    save = f"{plan.output_dir}/{stem}"
    device = "cpu" if entry.cpu and plan.options.device == "cpu" else cfg.value(4)
    use_gpu = cfg.param(4, device)
    # One epoch in benchmark_train, and where the npu script rewrote the device line (the bash tests that word only)
    epochs = "1" if plan.options.mode is Mode.BENCHMARK_TRAIN or cfg.value(4) == "npu" else DEFAULT_EPOCHS
    amp = literal(*AMP[autocast]) if autocast in AMP else literal("-o", "AMP.use_amp=False")
    body = (use_gpu, cfg.path(7, save), cfg.param(6, epochs), cfg.param(9), amp, cfg.param(8), cfg.param(12))
    mem = literal("-o", "Global.print_mem_info=True")
    python = plan.interpreter
    if entry.single or entry.cpu:
        train = command(python, script, *body, mem)
    else:
        ips = (f"--ips={entry.ips}",) if entry.machines else ()
        launch = literal("-m", "paddle.distributed.launch", *ips, f"--devices={entry.gpus}")
        if entry.machines:  # pretrain before epoch, as the bash writes it
            body = (body[0], body[1], body[3], body[2], *body[4:])
        train = command(python, launch, script, *body, mem, literal(*LOG_RANKS))
    if any(m in model for m in FUSED_ATTN_MODELS) and autocast in ("amp", "fp16"):
        train = command(
            Fragment(train.text, train.argv),
            literal("-o", "Arch.use_fused_attn=True", "-o", "Arch.use_fused_linear=True"),
        )
    # Documented fix (docs/suites.md): PaddleClas writes its checkpoints into Global.output_dir itself; the bash
    # still looks in <save>/<model>/ (<save>/RecModel/), where older PaddleClas wrote them.
    weights = inside(plan.config, save, Role.TRAIN_MODEL_NAME)
    train_stage = plan.stage(
        chain,
        "train",
        StageKind.TRAIN,
        train,
        env_of(entry, StageKind.TRAIN, plan.options),
        f"{save}.log",
        outputs=(f"{weights}.pdparams",),
    )
    stages = [train_stage]
    rank0 = entry.machines
    if cfg.value(23) != NULL:
        log = f"{plan.output_dir}/{stem}_eval.log"
        evaluate = command(python, cfg.script(23), cfg.path(9, weights), use_gpu, cfg.param(24))
        stages.append(
            plan.stage(
                chain,
                "eval",
                StageKind.EVAL,
                evaluate,
                env_of(entry, StageKind.EVAL, plan.options),
                log,
                requires=(train_stage.id,),
                rank0_only=rank0,
            )
        )
    else:
        plan.skipped.append(Skipped(f"{chain}::eval", f"eval script (line {cfg.lines.line(23)}) is null"))
    if export_script == NULL:
        plan.skipped.append(Skipped(f"{chain}::export", "export script is null: nothing to infer with"))
        plan.chains.append(Chain(chain, trainer, autocast, entry.topology, save, tuple(stages)))
        return
    if any(m in model for m in REC_MODELS):
        # The bash sets the eval weights again here instead of the export's (a slip): the export gets none.
        export_weights = DROPPED
        plan.notes.append(f"{chain}: export without weights, as the bash (it never sets them for {model})")
    else:
        export_weights = cfg.path(28, weights)
    # The bash's export takes the yml's device; on a CPU run that is a GPU that is not there.
    device_cpu = cfg.param(4, "cpu") if plan.options.device == "cpu" else DROPPED
    export = command(python, cfg.script(29, export_script), export_weights, cfg.path(27, save), device_cpu)
    export_stage = plan.stage(
        chain,
        "export",
        StageKind.EXPORT,
        export,
        env_of(entry, StageKind.EXPORT, plan.options),
        f"{plan.output_dir}/{stem}_export.log",
        requires=(train_stage.id,),
        outputs=(f"{save}/inference.pdiparams",),
        rank0_only=rank0,
    )
    stages.append(export_stage)
    env = env_of(entry, StageKind.INFER, plan.options)
    stages.extend(_sweep(plan, cfg, chain, save, entry.gpus, env, (export_stage.id,)))
    plan.chains.append(Chain(chain, trainer, autocast, entry.topology, save, tuple(stages)))


def _kl_quant_chain(plan: PlanDraft) -> None:
    cfg = Entries(plan.config.lines)
    infer_model = cfg.value(INFER_MODEL)
    inside = os.path.normpath(infer_model)
    if inside.startswith("..") or os.path.isabs(inside):
        raise refuse(
            plan.config,
            INFER_MODEL,
            plan.options.mode,
            f"infer_model '{infer_model}' lies outside the "
            "checkout: the bash's 'cd <infer_model>/quant_post_static_model; cd ../../deploy' would "
            "run the sweep from outside it; expected a folder inside the checkout ('./<name>_infer/')",
        )
    chain = "kl_quant"
    quantize = command(plan.interpreter, cfg.script(KL_QUANT))
    env = {"CUDA_VISIBLE_DEVICES": None} if plan.options.device == "cpu" else {}
    quant_dir = f"{infer_model}/quant_post_static_model"
    export = plan.stage(
        chain,
        "export",
        StageKind.EXPORT,
        quantize,
        env,
        f"{plan.output_dir}/export.log",
        outputs=(f"{quant_dir}/model.pdiparams",),
    )
    plan.notes.append(
        f"kl_quant: the bash links {quant_dir}/model.* to inference.* after the quantization; "
        "the predictor reads them there"
    )
    sweep = _sweep(plan, cfg, chain, f"../{quant_dir}", "0", env, (export.id,))
    topology = gpu_entry("-1" if plan.options.device == "cpu" else "0", plan.options.device == "cpu").topology
    plan.chains.append(Chain(chain, "kl_quant", "", topology, "", (export, *sweep)))


def _sweep(
    plan: PlanDraft,
    cfg: Entries,
    chain: str,
    model_dir: str,
    gpu: str,
    env: Mapping[str, str | None],
    requires: tuple[str, ...],
) -> list[Stage]:
    """func_inference: CPU cells (mkldnn × threads × batch × precision, the precision not passed on) and GPU cells
    (trt × precision × batch, fp16 without TensorRT dropped), run from deploy/."""
    cwd = os.path.join(plan.options.repo, "deploy")
    values = [ifs_fields(cfg.value(i), "|") for i in range(41, 46)]
    mkldnns, threads_list, batches, trts, precisions = values
    # What every cell shares, made once: a sweep has dozens of cells.
    python, script, model = plan.interpreter, cfg.script(39), cfg.path(46, model_dir)
    tail = (cfg.param(47), cfg.param(49))
    found: list[tuple[InferCase, str, Command]] = []
    for use_gpu in ifs_fields(cfg.value(40), "|"):
        device = raw_param(cfg.key(40), use_gpu, cfg.lines, 40)
        if use_gpu in CPU_VALUES:
            extra = cfg.param(50)
            mkldnn_flags = {mkldnn: raw_param(cfg.key(41), mkldnn, cfg.lines, 41) for mkldnn in mkldnns}
            for mkldnn, threads, batch, precision in product(mkldnns, threads_list, batches, precisions):
                case = InferCase("cpu", use_gpu, batch, precision, mkldnn, threads)
                cell = f"usemkldnn_{mkldnn}_threads_{threads}_precision_{precision}_batchsize_{batch}"
                run = command(
                    python, script, device, mkldnn_flags[mkldnn], cfg.param(42, threads), model,
                    cfg.param(43, batch), *tail, extra,
                )  # fmt: skip
                found.append((case, f"python_infer_cpu_gpus_{gpu}_{cell}.log", run))
        elif use_gpu in accelerator_values(plan.options.device):
            for trt, precision, batch in product(trts, precisions, batches):
                if precision == "True" and trt == "False":
                    continue
                case = InferCase("gpu", use_gpu, batch, precision, use_tensorrt=trt)
                cell = f"usetrt_{trt}_precision_{precision}_batchsize_{batch}"
                run = command(
                    python, script, device, cfg.param(44, trt), cfg.param(45, precision),
                    model, cfg.param(43, batch), *tail,
                )  # fmt: skip
                found.append((case, f"python_infer_gpu_gpus_{gpu}_{cell}.log", run))
    return infer_stages(plan, chain, found, env, requires, cwd)


# benchmark_train.sh's edits of its config copy (physical lines): precision, epoch, batch size, model type, gpu ids
# and the profiler line per run; eval, export and the pact and fpgm trainers nulled; shuffle and shared-memory
# options rewritten (print every step, no eval during training), and the section's num_workers put in.
BENCH = Bench(
    Layout(
        trainer=15,
        nulled=(24, 30, 17, 18),
        rewrites=(
            (" -o DataLoader.Train.sampler.shuffle=False", " -o Global.print_batch_step=1"),
            ("-o DataLoader.Train.loader.use_shared_memory=False", " -o Global.eval_during_train=False"),
        ),
        workers=(" -o DataLoader.Train.loader.num_workers=0", " -o DataLoader.Train.loader.num_workers={}"),
    ),
    _read,
    _train_chains,
)
