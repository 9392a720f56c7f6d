"""One chain's stages: train → eval / export → infer sweep, or whole_infer's export → sweep (the PTQ chain of
``tipc.dialects.paddleocr.plan.ptq`` is built from the same pieces: ``model_export``, ``sweep_stages``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from tipc.config.model import NULL, Field, TipcConfig
from tipc.dialects.paddleocr.config.ptq import PtqConfig
from tipc.dialects.paddleocr.config.values import paired
from tipc.dialects.paddleocr.plan.commands import (
    TrainArgs,
    amp_fragment,
    eval_command,
    export_command,
    infer_command,
    launch_fragment,
    train_command,
)
from tipc.dialects.paddleocr.plan.sweep import GpuRule, infer_sweep
from tipc.dialects.paddleocr.plan.trainers import Trainer
from tipc.plan.env import stage_env, whole_infer_env
from tipc.plan.fragments import DROPPED, Command, Fragment, command_stage, config_text, set_param, set_path
from tipc.plan.model import Chain, InferCase, PlanOptions, Skipped, Stage, StageKind, Topology
from tipc.plan.naming import (
    infer_log,
    infer_stage_name,
    launch_log_dir,
    save_dir,
    stage_id,
    stage_log,
    train_chain_id,
    whole_infer_chain_id,
    whole_infer_export_log,
    within,
)

# Values of inference_dir that mean "the save dir itself" (`##` reads as an empty value).
NO_SUBDIR = ("", NULL, "##")
# Values of an infer_export item that export nothing: null, or no partner for this model (the
# bash's test of an empty partner fails, so it takes the no-export branch).
NO_EXPORT = (None, "", NULL)

ConfigT = TypeVar("ConfigT", TipcConfig, PtqConfig)


@dataclass(frozen=True, slots=True)
class Context(Generic[ConfigT]):
    """What every chain of one plan shares."""

    config: ConfigT
    options: PlanOptions
    python: Fragment
    log_path: str
    epoch: str | None  # the mode's value, None = dropped
    batch: str | None

    @property
    def cpu_only(self) -> bool:
        return self.options.device == "cpu"

    def param(self, field: Field, value: str | None) -> Fragment:
        """``<field's key>=value`` (config text), dropped as func_set_params would."""
        return set_param(field.key, value, self.config.path, field)

    def own(self, field: Field) -> Fragment:
        """A key:value line used as it stands."""
        return self.param(field, field.value)

    def script(self, text: str, field: Field) -> Fragment:
        fragment = config_text(text, self.config.path, field)
        if field.raw.strip() == text:  # the whole line's value: keep the bash's trailing spaces
            fragment = replace(fragment, text=text + field.raw[len(field.raw.rstrip()) :])
        return fragment

    def stage(
        self,
        chain: str,
        name: str,
        kind: StageKind,
        command: Command,
        env: Mapping[str, str | None],
        log: str,
        *,
        requires: tuple[str, ...] = (),
        outputs: tuple[str, ...] = (),
        legacy_log: str | None = None,  # None: ``log``
        rank0_only: bool = False,
        infer: InferCase | None = None,
        copy_train_log: tuple[str, str] | None = None,
        launch_log: str = "",
    ) -> Stage:
        return command_stage(
            chain, name, kind, command, env, log, self.options.repo, legacy_log=legacy_log, requires=requires,
            outputs=outputs, rank0_only=rank0_only, infer=infer, copy_train_log=copy_train_log, launch_log=launch_log,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Built:
    chain: Chain
    skipped: tuple[Skipped, ...]


def train_chain(
    ctx: Context[TipcConfig],
    topology: Topology,
    use_gpu: str | None,
    autocast: str,
    trainer: Trainer,
    infer_prefix: str = "",
) -> Built:
    run = _TrainRun(ctx, topology, trainer, autocast)
    flag = ctx.param(ctx.config.train_use_gpu, "False" if ctx.cpu_only else use_gpu)
    train = run.train(flag)
    stages = [train]
    skipped: list[Skipped] = []
    eval_stage = run.eval(train, flag)
    if isinstance(eval_stage, Stage):
        stages.append(eval_stage)
    else:
        skipped.append(eval_stage)
    if not trainer.has_export:
        where = f"{trainer.export.key}, line {trainer.export.line}"
        skipped.append(Skipped(stage_id(run.chain, "export"), f"export script ({where}) is null"))
        skipped.append(Skipped(stage_id(run.chain, "infer"), f"no export ({where} is null): nothing to infer with"))
        return Built(run.assemble(stages), tuple(skipped))
    export = run.export(train)
    cfg = ctx.config
    infer, dropped = sweep_stages(
        ctx,
        run.chain,
        topology.gpu_label,
        trainer.quant,
        set_path(cfg.model_dir.key, run.model_dir),
        ctx.param(cfg.image_dir, cfg.train_infer_img_dir.value),
        run.env(StageKind.INFER),
        (export.id,),
        run.rank0,
        infer_prefix,
    )
    return Built(run.assemble([*stages, export, *infer]), tuple(skipped) + dropped)


@dataclass(frozen=True, slots=True)
class _TrainRun:
    """One gpu entry × autocast × trainer: the names and stages the training modes build for it."""

    ctx: Context[TipcConfig]
    topology: Topology
    trainer: Trainer
    autocast: str

    @property
    def chain(self) -> str:
        return train_chain_id(self.trainer.name, self.topology, self.autocast)

    @property
    def save(self) -> str:
        return save_dir(self.ctx.log_path, self.trainer.name, self.topology, self.autocast)

    @property
    def weights(self) -> str:
        return self._within(self.ctx.config.train_model_name, "train_model_name")

    @property
    def model_dir(self) -> str:
        inference_dir = self.ctx.config.inference_dir
        return self.save if inference_dir.value in NO_SUBDIR else self._within(inference_dir, "inference_dir")

    def _within(self, field: Field, role: str) -> str:
        return within(self.save, field.value, self.ctx.config.path, field.line, role)

    @property
    def rank0(self) -> bool:
        return self.topology.kind == "multi_node"

    def log(self, stage: str) -> str:
        return stage_log(self.ctx.log_path, self.trainer.name, self.topology, self.autocast, stage)

    def env(self, kind: StageKind) -> dict[str, str | None]:
        return stage_env(self.topology, kind, self.ctx.options.start_port)

    def train(self, use_gpu: Fragment) -> Stage:
        ctx, cfg, save = self.ctx, self.ctx.config, self.save
        args = TrainArgs(
            use_gpu=use_gpu,
            save=set_path(cfg.save_model_dir.key, save),
            epoch=ctx.param(cfg.epoch, ctx.epoch),
            pretrain=ctx.own(cfg.pretrained_model),
            batch=ctx.param(cfg.train_batch, ctx.batch),
            amp=amp_fragment(self.autocast),
            param1=ctx.own(cfg.train_param1),
        )
        options = ctx.options
        launch = (
            launch_fragment(self.topology, save, options.host, options.start_port)
            if self.topology.launches
            else DROPPED
        )
        command = train_command(
            ctx.python, ctx.script(self.trainer.train_text, self.trainer.train), args, self.topology, launch
        )
        return ctx.stage(
            self.chain,
            "train",
            StageKind.TRAIN,
            command,
            self.env(StageKind.TRAIN),
            self.log("train"),
            outputs=(f"{self.weights}.pdparams",),
            legacy_log=f"{save}.log",
            copy_train_log=(f"{save}/train.log", f"{save}.log"),
            launch_log=launch_log_dir(save) if self.topology.launches else "",
        )

    def eval(self, train: Stage, use_gpu: Fragment) -> Stage | Skipped:
        ctx, cfg = self.ctx, self.ctx.config
        if cfg.eval.is_null:
            return Skipped(stage_id(self.chain, "eval"), f"eval script ({cfg.eval.key}, line {cfg.eval.line}) is null")
        command = eval_command(
            ctx.python,
            ctx.script(cfg.eval.value, cfg.eval),
            set_path(cfg.pretrained_model.key, self.weights),
            use_gpu,
            ctx.own(cfg.eval_param1),
            self.log("eval"),
        )
        return ctx.stage(
            self.chain,
            "eval",
            StageKind.EVAL,
            command,
            self.env(StageKind.EVAL),
            self.log("eval"),
            requires=(train.id,),
            rank0_only=self.rank0,
        )

    def export(self, train: Stage) -> Stage:
        ctx, cfg, export = self.ctx, self.ctx.config, self.trainer.export
        command = export_command(
            ctx.python,
            ctx.script(export.value, export),
            set_path(cfg.checkpoints.key, self.weights),
            set_path(cfg.save_inference_dir.key, self.save),
            self.log("export"),
        )
        return ctx.stage(
            self.chain,
            "export",
            StageKind.EXPORT,
            command,
            self.env(StageKind.EXPORT),
            self.log("export"),
            requires=(train.id,),
            outputs=(f"{self.model_dir}/inference.pdiparams",),
            rank0_only=self.rank0,
        )

    def assemble(self, stages: Iterable[Stage]) -> Chain:
        return Chain(self.chain, self.trainer.name, self.autocast, self.topology, self.save, tuple(stages))


def whole_infer_chain(
    ctx: Context[TipcConfig], index: int, model: str, topology: Topology, infer_prefix: str = ""
) -> Built:
    """Optional export of ``model`` into itself, then the sweep on it (inference_dir is not applied)."""
    cfg, path = ctx.config, ctx.config.path
    chain = whole_infer_chain_id(index)
    env = whole_infer_env(ctx.options.whole_infer_gpu, ctx.cpu_only)
    stages: list[Stage] = []
    script = paired(cfg.infer_export.values(), index)
    if script not in NO_EXPORT:
        # Both keys take the model path, which is config text of the infer_model line.
        weights = set_param(cfg.checkpoints.key, model, path, cfg.infer_model)
        save = set_param(cfg.save_inference_dir.key, model, path, cfg.infer_model)
        stages.append(model_export(ctx, chain, index, script, weights, save, model, env))
    quant = paired(cfg.infer_quant.values(), index) == "True"
    infer, dropped = sweep_stages(
        ctx,
        chain,
        topology.gpu_label,
        quant,
        set_param(cfg.model_dir.key, model, path, cfg.infer_model),
        ctx.own(cfg.image_dir),
        env,
        tuple(s.id for s in stages),
        False,
        infer_prefix,
    )
    return Built(Chain(chain, "", "", topology, "", tuple(stages + infer)), dropped)


def model_export(
    ctx: Context[ConfigT],
    chain: str,
    index: int,
    script: str,
    weights: Fragment,
    save: Fragment,
    model_dir: str,
    env: Mapping[str, str | None],
) -> Stage:
    """whole_infer's export of model ``index`` (an item of the infer_export line) into ``model_dir``."""
    log = whole_infer_export_log(ctx.log_path, index)
    command = export_command(ctx.python, ctx.script(script, ctx.config.infer_export), weights, save, log)
    return ctx.stage(
        chain, "export", StageKind.EXPORT, command, env, log, outputs=(f"{model_dir}/inference.pdiparams",)
    )


def sweep_stages(
    ctx: Context[ConfigT],
    chain: str,
    gpu_label: str | None,
    quant: bool,
    model_dir: Fragment,
    image_dir: Fragment,
    env: Mapping[str, str | None],
    requires: tuple[str, ...],
    rank0: bool,
    prefix: str,
    gpu_rule: GpuRule | None = None,
) -> tuple[list[Stage], tuple[Skipped, ...]]:
    """The chain's infer stages, and the sweep's cells dropped by rule (``gpu_rule``: see ``infer_sweep``;
    ``gpu_label``: see ``infer_log``)."""
    cfg = ctx.config
    if cfg.inference.is_null:
        reason = f"inference script ({cfg.inference.key}, line {cfg.inference.line}) is null"
        return [], (Skipped(stage_id(chain, "infer"), reason),)
    script = ctx.script(cfg.inference.value, cfg.inference)
    sweep = infer_sweep(cfg, quant, gpu_available=not ctx.cpu_only, gpu_rule=gpu_rule, plan_device=ctx.options.device)
    stages = []
    for case in sweep.cases:
        log = infer_log(ctx.log_path, gpu_label, case, prefix)
        command = infer_command(ctx.python, script, cfg, case, model_dir, image_dir, log)
        stages.append(
            ctx.stage(
                chain,
                infer_stage_name(case),
                StageKind.INFER,
                command,
                env,
                log,
                requires=requires,
                rank0_only=rank0,
                infer=case,
            )
        )
    return stages, tuple(Skipped(stage_id(chain, d.name), d.reason) for d in sweep.dropped)
