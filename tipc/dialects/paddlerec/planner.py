"""PaddleRec: ``<model>/train_infer_python.txt`` (and ``train_infer_python_million.txt``) read and planned as
PaddleRec's ``test_tipc/test_train_inference_python.sh`` runs them.

The bash reads the first 51 physical lines only, by position, a value stopping at its next colon. Overrides are
bare ``runner.key=value`` words after the trainer's ``-o`` (``runner.use_gpu=True``, ``runner.epochs=4``); the save
folder is the train log's name (``<trainer>_gpus_<gpu>_autocast_<autocast>_nodes_<n>.log``), the trainer writes
``<save>/<epoch>/rec.pdparams``, the export (``to_static.py``, ``runner.CE=true``) reads
``runner.model_init_path=<save>/<train_model_name>`` and writes ``<save>/tostatic.*``, and the predictor
(``paddle_infer.py``) reads ``--model_dir=<save>/`` (entry 35 is the ``##`` after the export lines: an empty
value, so a trailing ``/``). ``whole_infer`` sweeps each ``infer_model``. The bash's other modes plan nothing:
``klquant_whole_infer`` re-reads the config with an awk pattern that matches no line, so it runs nothing, and its
``benchmark_train`` is the parameter-server and PGLBox harness (``tools/static_gpubox_trainer.py`` …), not this
chain.
"""

from __future__ import annotations

import re

from tipc import Chain, InferCase, Mode, Plan, PlanOptions, PythonCheck, Skipped, Stage, StageKind
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
    mode_param,
    name_part,
    on_path,
    output_dir,
    param,
    raw_param,
    suite_config,
    tag_words,
    train_cells,
    whole_infer_device,
)

NAME = "PaddleRec"
LINES_READ = 51  # awk 'NR==1, NR==51': the bash never sees a line past it
TRAIN_MODES = (Mode.LITE_TRAIN_LITE_INFER, Mode.LITE_TRAIN_WHOLE_INFER, Mode.WHOLE_TRAIN_WHOLE_INFER)
MODES = (*TRAIN_MODES, Mode.WHOLE_INFER)
AMP = ("Global.use_amp=True", "Global.scale_loss=1024.0", "Global.use_dynamic_loss_scaling=True")
WEIGHTS_FILE = "rec.pdparams"  # tools/utils/save_load.py: <save>/<epoch>/rec.pdparams
EXPORT_FILE = "tostatic.pdiparams"  # to_static.py's save_jit_model(prefix='tostatic')
CPU_ONLY_VALUE = "False"  # runner.use_gpu on a CPU run
_VARIANT = re.compile(r"^(?P<base>.*infer_python)_(?P<variant>[a-z0-9]+)\.txt$")


def load(path: str) -> SuiteConfig:
    whole = BashLines.read(path)
    kept = sum(1 for number in whole.numbers if number <= LINES_READ)
    lines = BashLines(whole.path, whole.texts[:kept], whole.numbers[:kept])
    return suite_config(NAME, path, lines, "colon_value")


def modes(config: SuiteConfig) -> tuple[Mode, ...]:
    del config  # every config runs in the same modes
    return MODES


def tags(file_name: str) -> tuple[str, ...]:
    """PaddleOCR's words, and the word after ``infer_python`` (``train_infer_python_million.txt``: ``million``)."""
    variant = _VARIANT.match(file_name)
    if variant is None:
        return tag_words(file_name)
    return (*tag_words(f"{variant['base']}.txt"), variant["variant"])


def build(config: SuiteConfig, options: PlanOptions, check: PythonCheck = on_path) -> Plan:
    mode = options.mode
    plan = draft(config, options, output_dir(options.output_root, config.model_name.value, mode), check)
    cfg = Entries(config.lines, mode)
    if mode is Mode.WHOLE_INFER:
        _infer_chains(plan, cfg)
    else:
        _Trains(plan, cfg).build()
    return plan.plan()


class _Trains:
    """The training loop; it carries the latest norm trainer's weights to pact and fpgm trainers, as the bash."""

    def __init__(self, plan: PlanDraft, cfg: Entries) -> None:
        self.plan, self.cfg = plan, cfg
        self.norm_weights: Fragment = DROPPED  # unset in the bash until a norm trainer ran

    def build(self) -> None:
        cfg, cpu_only = self.cfg, self.plan.options.device == "cpu"
        if cpu_only:
            self.plan.notes.append(
                f"device cpu: every gpu entry trains as one CPU process ({cfg.key(4)}=False); the export gets it "
                "too (the bash gives it none, and to_static.py takes the yaml's use_gpu: True, which a CPU-only "
                "Paddle refuses)"
            )
        for cell in train_cells(self.plan, cfg):
            use_gpu = CPU_ONLY_VALUE if cell.entry.cpu and cpu_only else cell.use_gpu
            self.chain(cell.entry, use_gpu, cell.autocast, cell.trainer)

    def trainer(self, trainer: str) -> tuple[Fragment, str, bool]:
        """(train script, export script, quantized) in the bash's order of tests."""
        cfg = self.cfg
        for train, export, quant in ((16, 30, True), (17, 31, False), (18, 32, False), (19, 33, False)):
            if trainer == cfg.key(train):
                return cfg.script(train), cfg.value(export), quant
        if trainer == cfg.key(20):
            return cfg.script(20), cfg.value(34), False
        return cfg.script(15), cfg.value(29), False

    def chain(self, entry: GpuEntry, use_gpu_value: str, autocast: str, trainer: str) -> None:
        plan, cfg, options = self.plan, self.cfg, self.plan.options
        nodes = entry.nodes
        chain = f"{trainer}-gpus_{entry.gpus}-{autocast}" + (f"-nodes_{nodes}" if nodes > 1 else "")
        script, export_script, quant = self.trainer(trainer)
        if script.text == NULL:
            plan.skipped.append(Skipped(chain, f"trainer '{trainer}': its train script is null"))
            return
        if not (entry.single or entry.cpu) and nodes == 1:
            plan.skipped.append(Skipped(chain, _PARAMETER_SERVER))
            return
        stem = name_part(f"{trainer}_gpus_{entry.gpus}_autocast_{autocast}_nodes_{nodes}")
        save = f"{plan.output_dir}/{component(stem, '.log')}"
        use_gpu = cfg.param(4, use_gpu_value)
        pretrain = cfg.param(9)
        if trainer in (cfg.key(16), cfg.key(17)) and nodes == 1:
            pretrain = self.norm_weights
        body = [
            use_gpu,
            cfg.path(7, save),
            cfg.by_mode(6),
            pretrain,
            cfg.param(5, autocast),
            cfg.by_mode(8),
            cfg.param(12),
            literal(*AMP) if autocast == "amp" else DROPPED,
        ]
        python = plan.interpreter
        if entry.single or entry.cpu:
            train = command(python, script, *body)
        else:
            body[2], body[3] = body[3], body[2]  # pretrain before epoch, as the bash writes a launch
            launch = literal("-m", "paddle.distributed.launch", f"--ips={entry.ips}", f"--devices={entry.gpus}")
            train = command(python, launch, script, *body)
        model_name = mode_param(cfg.lines.text(10), cfg.mode)  # the epoch folder; none for a mode it leaves out
        weights = f"{save}/{component(name_part(model_name)) if model_name else ''}"
        train_stage = plan.stage(
            chain,
            "train",
            StageKind.TRAIN,
            train,
            env_of(entry, StageKind.TRAIN, options),
            f"{save}.log",
            outputs=(f"{weights}/{WEIGHTS_FILE}",) if model_name else (),
        )
        stages = [train_stage]
        weights_arg = cfg.path(9, weights)
        if trainer == cfg.key(15) and nodes == 1:
            self.norm_weights = weights_arg
        if cfg.value(23) != NULL:
            evaluate = command(python, cfg.script(23), weights_arg, use_gpu, cfg.param(24))
            env, log, first = env_of(entry, StageKind.EVAL, options), f"{save}_eval.log", (train_stage.id,)
            stages.append(
                plan.stage(chain, "eval", StageKind.EVAL, evaluate, env, log, requires=first, rank0_only=nodes > 1)
            )
        if export_script in (NULL, ""):  # the bash's unquoted test fails on an empty one: no export either
            plan.skipped.append(Skipped(f"{chain}::export", "export script is null: nothing to infer with"))
            plan.chains.append(Chain(chain, trainer, autocast, entry.topology, save, tuple(stages)))
            return
        export = command(
            python, cfg.script(29, export_script), cfg.path(28, weights), cfg.path(27, save), _cpu_export(plan, cfg)
        )
        export_stage = plan.stage(
            chain,
            "export",
            StageKind.EXPORT,
            export,
            env_of(entry, StageKind.EXPORT, options),
            f"{save}_export.log",
            requires=(train_stage.id,),
            outputs=(f"{save}/{EXPORT_FILE}",),
            rank0_only=nodes > 1,
        )
        stages.append(export_stage)
        inference_dir = cfg.value(35)
        model_dir = save if inference_dir in (NULL, "##") else inside(plan.config, save, Role.INFERENCE_DIR)
        env = env_of(entry, StageKind.INFER, options)
        stages.extend(_sweep(plan, cfg, Target(chain, model_dir, cfg.value(11), str(quant), env, (export_stage.id,))))
        plan.chains.append(Chain(chain, trainer, autocast, entry.topology, save, tuple(stages)))


_PARAMETER_SERVER = (
    "a multi-GPU entry on one node: PaddleRec's bash trains it with the parameter-server commands of its "
    "benchmark_train harness, whose variables these modes never set, so it trains nothing; tipc plans no chain "
    "for it (run it with --device cpu, or give the entry a node list)"
)


def _cpu_export(plan: PlanDraft, cfg: Entries) -> Fragment:
    """``runner.use_gpu=False`` on a CPU run's export (its words follow the script's ``-o``), nothing elsewhere."""
    return cfg.param(4, CPU_ONLY_VALUE) if plan.options.device == "cpu" else DROPPED


def _infer_chains(plan: PlanDraft, cfg: Entries) -> None:
    """whole_infer: each ``infer_model`` (entry 36), exported first where its ``infer_export`` says, then swept."""
    env, topology = whole_infer_device(plan.options)
    for chain, model, export, quant in infer_models(cfg):
        stages: list[Stage] = []
        model_dir = model
        if export not in (NULL, ""):
            model_dir = dirname(model)
            run = command(
                plan.interpreter, cfg.script(37, export), cfg.param(28, model), cfg.param(27, model_dir),
                _cpu_export(plan, cfg),
            )  # fmt: skip
            stages.append(
                plan.stage(chain, "export", StageKind.EXPORT, run, env, f"{plan.output_dir}/{chain}_export.log")
            )
        stages.extend(
            _sweep(plan, cfg, Target(chain, model_dir, cfg.value(47), quant, env, tuple(s.id for s in stages)))
        )
        if stages:
            plan.chains.append(Chain(chain, "", "", topology, "", tuple(stages)))


def _sweep(plan: PlanDraft, cfg: Entries, target: Target) -> list[Stage]:
    """func_inference: CPU cells pass mkldnn, threads, the model, batch, data, benchmark and precision; GPU cells
    TensorRT, precision, the model, batch, data and benchmark; each log names the use_gpu value."""
    if cfg.value(39) == NULL:  # the bash runs 'python null …' for each cell
        plan.skipped.append(
            Skipped(f"{target.chain}::infer", f"the inference script (line {cfg.lines.line(39)}) is null")
        )
        return []
    tail = (param(cfg.key(47), target.data, cfg.lines, 47), cfg.param(49))
    found: list[tuple[InferCase, str, Command]] = []
    for cell in cells(cfg, target.quant, plan_device=plan.options.device):
        case = cell.case
        options: tuple[Fragment, ...]
        if case.device == "cpu":
            options = (
                raw_param(cfg.key(41), case.enable_mkldnn or "", cfg.lines, 41), cfg.param(42, case.cpu_threads),
                cfg.path(46, target.model_dir), cfg.param(43, case.batch_size), *tail, cfg.param(45, case.precision),
            )  # fmt: skip
        else:
            options = (
                cfg.param(44, case.use_tensorrt), cfg.param(45, case.precision), cfg.path(46, target.model_dir),
                cfg.param(43, case.batch_size), *tail,
            )  # fmt: skip
        run = command(plan.interpreter, cfg.script(39), cell.device, *options, cfg.param(50))
        found.append((case, f"python_infer_{case.device}_gpus_{case.use_gpu}_{cell.name}.log", run))
    return infer_stages(plan, target.chain, found, target.env, target.requires)
