"""PaddleSeg: ``<model>/train_infer_python.txt`` (and ``train_pact_…``, fleet and AMP variants) read and planned as
PaddleSeg's ``test_train_inference_python.sh`` runs them.

What differs from PaddleOCR: the third section is ``export_params`` (the bash reads lines by position, so a
header may stand where PaddleOCR has a line: entry 35, PaddleOCR's ``inference_dir``, is then the
``infer_params`` header, an empty value, and the sweep's model folder gets a trailing ``/``); overrides are
``--flag`` lines (``--iters``, ``--batch_size``, ``--model_path``, ``--save_dir``); ``amp`` adds
``Global.use_amp=True Global.scale_loss=1024.0 Global.use_dynamic_loss_scaling=True``; a launch takes
``--devices=``; a pact or fpgm trainer starts from the latest norm trainer's weights; the predictor reads
``<model folder>/deploy.yaml`` and writes its results to a ``--save_dir`` (entry 50) named after the cell.

Weights: the bash evaluates and exports ``<save>/<train_model_name>`` when training wrote it and
``<save>/iter_<iters>/model.pdparams`` otherwise, looking at the disk after the train. tipc plans before
anything runs, so it reads the same choice off the train line: with ``--do_eval`` PaddleSeg writes
``best_model/model.pdparams`` (the configs' ``train_model_name``), without it only ``iter_<iters>/``.

Evidence: an export's ``deploy.yaml`` names the model and params files its predictor loads (``Deploy.model``,
``Deploy.params``), and the export passes only when it wrote each of them (``MANIFESTS``): a Paddle that writes
``model.json`` beside an earlier run's ``model.pdmodel``, which ``deploy.yaml`` names, fails the export.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import product
from pathlib import Path

from tipc.config.benchmark import DeviceNum
from tipc.config.model import NULL
from tipc.config.modes import Mode
from tipc.config.yamldoc import read_yaml
from tipc.errors import ConfigError
from tipc.files.write import component, name_part
from tipc.plan.devices import CPU_VALUES, VARIANT_DEVICES, accelerator_values
from tipc.plan.fragments import DROPPED, Command, Fragment, literal
from tipc.plan.interpreter import PythonCheck, on_path
from tipc.plan.model import Chain, InferCase, Plan, PlanOptions, Skipped, Stage, StageKind, Topology
from tipc.suites.bash import BashLines, Entries, dirname, ifs_fields, mode_param, param, raw_param
from tipc.suites.benchmark import SECTION, TRAINER_REWRITE, Bench, Layout, plan_runs
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
from tipc.suites.sweep import gpu_dropped
from tipc.suites.variants import MKLDNN_OFF, Rewrite, Variant

NAME = "PaddleSeg"


def _device(device: str) -> Variant:
    """PaddleSeg's test_train_inference_python_<device>.sh (the xpu one leaves --device:gpu, python and the slow
    models alone)."""
    npu = device == "npu"
    slow = ("hrnet_w48_contrast", "pfpnnet", "knet", "maskformer", "ocrnet_hrformer_small")
    return Variant(
        (
            *MKLDNN_OFF,
            Rewrite("Global.use_gpu", f"Global.use_{device}"),
            Rewrite("--device gpu", f"--device {device}"),
            *((Rewrite("--device:gpu", "--device:npu"),) if npu else ()),
            Rewrite("--device:cpu|gpu", f"--device:cpu|{device}"),
            Rewrite("--benchmark:True", "--benchmark:False"),
            *(
                (
                    Rewrite("python3.7", "python3.9"),
                    Rewrite("lite_train_lite_infer=20", "lite_train_lite_infer=2", slow),
                    Rewrite("--save_interval 500", "--save_interval 50", slow),
                )
                if npu
                else ()
            ),
        )
    )


DEVICES = {device: _device(device) for device in VARIANT_DEVICES}
TRAIN_MODES = (Mode.LITE_TRAIN_LITE_INFER, Mode.LITE_TRAIN_WHOLE_INFER, Mode.WHOLE_TRAIN_WHOLE_INFER)
MODES = (*TRAIN_MODES, Mode.WHOLE_INFER, Mode.KLQUANT_WHOLE_INFER)  # the bash runs klquant as whole_infer
AMP = ("Global.use_amp=True", "Global.scale_loss=1024.0", "Global.use_dynamic_loss_scaling=True")
DO_EVAL = "--do_eval"
AUTO_CAST = "Global.auto_cast"


DEPLOY = "deploy.yaml"
DEPLOY_FILES = ("model", "params")  # the keys of its Deploy mapping that name files beside it


def deploy_files(path: Path) -> tuple[str, ...]:
    """The files an export's ``deploy.yaml`` names (``Deploy.model``, ``Deploy.params``), relative to its folder."""
    doc = read_yaml(path, expected="an export's deploy.yaml")
    named = tuple(doc.get("Deploy", key) for key in DEPLOY_FILES)
    if not all(isinstance(name, str) and name for name in named):
        raise ConfigError(
            str(path), doc.line("Deploy"), "expected Deploy.model and Deploy.params naming the exported files"
        )
    return tuple(str(name) for name in named)


MANIFESTS = {DEPLOY: deploy_files}


def load(path: str) -> SuiteConfig:
    return _read(path, BashLines.read(path))


def _read(path: str, lines: BashLines) -> SuiteConfig:
    return suite_config(NAME, path, lines, "colon_value")


def modes(config: SuiteConfig) -> tuple[Mode, ...]:
    """Every mode; benchmark_train with a train_benchmark_params section (test_tipc/benchmark_train.sh)."""
    return (*MODES, Mode.BENCHMARK_TRAIN) if config.lines.header_index(SECTION) is not None else MODES


def build(config: SuiteConfig, options: PlanOptions, check: PythonCheck = on_path) -> Plan:
    mode = options.mode
    output = f"{options.output_root.rstrip('/')}/{component(name_part(config.model_name.value))}/{mode}"
    plan = draft(config, options, output, check)
    cfg = Entries(config.lines, mode)
    if mode in TRAIN_MODES:
        _Trains(plan, cfg).build()
    elif mode is Mode.BENCHMARK_TRAIN:
        plan_runs(BENCH, config, plan)
    else:
        _infer_chains(plan, cfg)
    return plan.plan()


class _Trains:
    """The training loop; it carries the latest norm trainer's weights to pact and fpgm trainers, as the bash."""

    def __init__(self, plan: PlanDraft, cfg: Entries) -> None:
        self.plan, self.cfg = plan, cfg
        self.norm_weights: Fragment = Fragment("")  # unset in the bash until a norm trainer ran
        self.epochs = mode_param(cfg.lines.text(6), cfg.mode)
        static = cfg.lines.header_index("to_static_train_benchmark_params") or 0
        self.static = static
        self.extra: tuple[str, ...] = ()
        if cfg.mode == Mode.BENCHMARK_TRAIN:
            self.extra = _extra_args(cfg.lines)

    def build(self) -> None:
        cpu_only = self.plan.options.device == "cpu"
        for cell in train_cells(self.plan, self.cfg):
            use_gpu = "cpu" if cell.entry.cpu and cpu_only else cell.use_gpu
            self.chain(cell.entry, use_gpu, cell.autocast, cell.trainer)

    def trainer(self, trainer: str) -> tuple[Fragment, str, bool]:
        cfg = self.cfg
        for train, export, quant in (
            (16, 30, True),
            (17, 31, False),
            (18, 32, False),
            (19, 33, False),
            (20, 34, False),
        ):
            if trainer == cfg.key(train):
                return cfg.script(train), cfg.value(export), quant
        if trainer == cfg.key(self.static):
            return cfg.script(15, f"{cfg.value(15)} {cfg.value(self.static)}"), cfg.value(29), False
        return cfg.script(15), cfg.value(29), False

    def autocast(self, autocast: str) -> Fragment:
        """benchmark_train passes a ``Global.auto_cast`` line's value as ``--precision``, as the bash."""
        cfg = self.cfg
        if cfg.mode == Mode.BENCHMARK_TRAIN and cfg.key(5) == AUTO_CAST:
            return param("--precision", autocast, cfg.lines, 5)
        return cfg.param(5, autocast)

    def chain(self, entry: GpuEntry, use_gpu_value: str, autocast: str, trainer: str) -> None:
        plan, cfg, options = self.plan, self.cfg, self.plan.options
        chain = f"{trainer}-gpus_{entry.gpus}-{autocast}" + (f"-nodes_{entry.nodes}" if entry.machines else "")
        script, export_script, quant = self.trainer(trainer)
        if script.text == NULL:
            plan.skipped.append(Skipped(chain, f"trainer '{trainer}': its train script is null"))
            return
        stem = name_part(f"{trainer}_gpus_{entry.gpus}_autocast_{autocast}")
        save = f"{plan.output_dir}/{component(stem + (f'_nodes_{entry.nodes}' if entry.machines else ''))}"
        logs = f"{plan.output_dir}/{component(f'{stem}_nodes_{entry.nodes}')}"
        pretrain = cfg.param(9)
        if trainer in (cfg.key(16), cfg.key(17)) and not entry.machines:
            pretrain = self.norm_weights
        use_gpu = cfg.param(4, use_gpu_value)
        amp = literal(*AMP) if autocast == "amp" else DROPPED
        if autocast == "fp16" and options.mode is Mode.BENCHMARK_TRAIN:
            amp = literal("--amp_level=O2")
        body = [
            use_gpu,
            cfg.path(7, save),
            cfg.param(6, self.epochs),
            pretrain,
            self.autocast(autocast),
            cfg.by_mode(8),
            cfg.param(12),
            amp,
            literal(*self.extra) if self.extra else DROPPED,
        ]
        python = plan.interpreter
        if entry.single or entry.cpu:
            train = command(python, script, *body)
        else:
            ips = (f"--ips={entry.ips}",) if entry.machines else ()
            if entry.machines:
                body[2], body[3] = body[3], body[2]
            launch = literal("-m", "paddle.distributed.launch", *ips, f"--devices={entry.gpus}")
            train = command(python, launch, script, *body)
        evaluated = DO_EVAL in script.argv
        iters = f"{save}/iter_{self.epochs}/model.pdparams"
        weights = inside(plan.config, save, Role.TRAIN_MODEL_NAME) if evaluated else iters
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
        weights_arg = cfg.path(9, weights)
        if trainer == cfg.key(15) and not entry.machines:
            self.norm_weights = weights_arg
        rank0 = entry.machines
        if cfg.value(23) != NULL:
            evaluate = command(python, cfg.script(23), weights_arg, use_gpu, cfg.param(24))
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
        export = command(python, cfg.script(29, export_script), cfg.path(28, weights), cfg.path(27, save))
        inference_dir = cfg.value(35)
        model_dir = save if inference_dir in (NULL, "##") else inside(plan.config, save, Role.INFERENCE_DIR)
        export_stage = plan.stage(
            chain,
            "export",
            StageKind.EXPORT,
            export,
            env_of(entry, StageKind.EXPORT, options),
            f"{logs}_export.log",
            requires=(train_stage.id,),
            outputs=(f"{model_dir}/{DEPLOY}",),
            rank0_only=rank0,
        )
        stages.append(export_stage)
        env = env_of(entry, StageKind.INFER, options)
        stages.extend(
            _sweep(plan, cfg, chain, model_dir, cfg.value(11), str(quant), entry.gpus, env, (export_stage.id,))
        )
        plan.chains.append(Chain(chain, trainer, autocast, entry.topology, save, tuple(stages)))


def _extra_args(lines: BashLines) -> tuple[str, ...]:
    """benchmark_train's ``--log_iters N --repeats N``, from the config's last line (``log_iters:15;repeats:500``,
    as the bash's parse_extra_args reads it: ';'-separated ``key:value`` words; later words win)."""
    found: dict[str, str] = {}
    for word in ifs_fields(lines.text(len(lines.texts) - 1), ";"):
        fields = ifs_fields(word, ":")
        if fields and fields[0] in ("log_iters", "repeats"):
            found[fields[0]] = fields[1] if len(fields) > 1 else ""
    return tuple(t for key in ("log_iters", "repeats") if found.get(key) for t in (f"--{key}", found[key]))


def _infer_chains(plan: PlanDraft, cfg: Entries) -> None:
    exports = ifs_fields(cfg.value(37), "|")
    quants = ifs_fields(cfg.value(38), "|")
    cpu_only = plan.options.device == "cpu"
    env: dict[str, str | None] = {"CUDA_VISIBLE_DEVICES": None} if cpu_only else {}
    topology = Topology("cpu", "-1") if cpu_only else Topology("gpu", "0", ("0",))
    for count, model in enumerate(ifs_fields(cfg.value(36), "|")):
        chain = f"infer_model_{count}"
        export = exports[count] if count < len(exports) else ""
        stages: list[Stage] = []
        if export not in (NULL, ""):
            save = dirname(model)
            run = command(plan.interpreter, cfg.script(37, export), cfg.param(28, model), cfg.param(27, save))
            stages.append(
                plan.stage(
                    chain,
                    "export",
                    StageKind.EXPORT,
                    run,
                    env,
                    f"{plan.output_dir}/{chain}_export.log",
                    outputs=(f"{save}/{DEPLOY}",),
                )
            )
        else:
            save = model
        quant = quants[count] if count < len(quants) else ""
        requires = tuple(s.id for s in stages)
        stages.extend(_sweep(plan, cfg, chain, save, cfg.value(47), quant, "0", env, requires))
        plan.chains.append(Chain(chain, "", "", topology, "", tuple(stages)))


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
    """func_inference: CPU cells (mkldnn × threads × batch × precision: fp32 only for a plain model, int8 only for
    a quantized one, fp16 only with mkldnn) and GPU cells (trt × precision × batch: int8 only for a quantized
    model, fp16 and int8 only with TensorRT, a quantized model only with TensorRT)."""
    deploy = f"{model_dir}/{DEPLOY}"
    mkldnns, threads_list, batches, trts, precisions = (ifs_fields(cfg.value(i), "|") for i in range(41, 46))
    data = (param(cfg.key(47), images, cfg.lines, 47), cfg.param(49))
    found: list[tuple[InferCase, str, Command]] = []
    for use_gpu in ifs_fields(cfg.value(40), "|"):
        device = raw_param(cfg.key(40), use_gpu, cfg.lines, 40)
        if use_gpu in CPU_VALUES:
            for mkldnn, threads, batch, precision in product(mkldnns, threads_list, batches, precisions):
                if _cpu_dropped(mkldnn, precision, quant):
                    continue
                cell = f"usemkldnn_{mkldnn}_threads_{threads}_precision_{precision}_batchsize_{batch}"
                results = component(name_part(f"python_infer_cpu_{cell}_results"))  # the values are config text
                run = command(
                    plan.interpreter, cfg.script(39), device, raw_param(cfg.key(41), mkldnn, cfg.lines, 41),
                    cfg.param(42, threads), cfg.path(46, deploy), cfg.param(43, batch), *data,
                    cfg.param(45, precision), cfg.path(50, f"{plan.output_dir}/{results}"),
                    cfg.param(51),
                )  # fmt: skip
                case = InferCase("cpu", use_gpu, batch, precision, mkldnn, threads)
                found.append((case, f"python_infer_cpu_gpu_{gpu}_{cell}.log", run))
        elif use_gpu in accelerator_values(plan.options.device):
            for trt, precision, batch in product(trts, precisions, batches):
                if gpu_dropped(trt, precision, quant):
                    continue
                run = command(
                    plan.interpreter, cfg.script(39), device, cfg.param(44, trt), cfg.param(45, precision),
                    cfg.path(46, deploy), cfg.param(43, batch), *data, cfg.param(51),
                )  # fmt: skip
                case = InferCase("gpu", use_gpu, batch, precision, use_tensorrt=trt)
                cell = f"usetrt_{trt}_precision_{precision}_batchsize_{batch}"
                found.append((case, f"python_infer_gpu_gpu_{gpu}_{cell}.log", run))
    return infer_stages(plan, chain, found, env, requires)


def _cpu_dropped(mkldnn: str, precision: str, quant: str) -> bool:
    return (
        (mkldnn == "False" and quant == "True")
        or (mkldnn == "False" and precision == "fp16")
        or (quant == "True" and precision != "int8")
        or (quant == "False" and precision != "fp32")
    )


def _bench_trains(plan: PlanDraft) -> None:
    _Trains(plan, Entries(plan.config.lines, plan.options.mode)).build()


# benchmark_train.sh's edits of its config copy (physical lines): gpu ids, precision, epoch and batch size (as
# 'benchmark_train=<n>') and the profiler line per run; eval and export nulled; a to-static run rewrites the
# trainer line. Without PARAMS it runs N1C1 and N1C8. Its section: batch_size, fp_items, epoch, profiler, flags.
BENCH = Bench(
    Layout(
        section=("batch_size", "fp_items", "epoch", "profile", "flags"),
        devices=(DeviceNum(1, 1), DeviceNum(1, 8)),
        by_mode=True,
        to_static=TRAINER_REWRITE,
    ),
    _read,
    _bench_trains,
)
