"""The chain of each suite's ``test_paddle2onnx.sh`` (mode ``paddle2onnx_infer``): convert, then infer with ONNX.

One chain, stages in the bash's order, with its commands, log names and status lines
(``results_paddle2onnx.log``), per layout (``tipc.dialects.paddleocr.config.paddle2onnx``):

* PaddleOCR: a ``convert_det`` and/or ``convert_rec`` stage (both for the four system models, det for
  a name holding ``det`` and the two table models, rec for one holding ``rec``), then one
  ``infer_onnx[cpu|gpu]`` per ``--use_gpu`` value with ``--use_onnx=True`` and the ONNX files;
* PaddleClas: ``convert``, then ``infer_onnx[cpu]`` in ``deploy/`` unless the inference line is null;
* PaddleDetection: per ``infer_mode`` item, the export of that mode (unless null), ``convert`` of the
  export, ``infer_onnx[cpu]``;
* PaddleSeg: ``convert``, ``infer_onnx[cpu]``.

Where tipc differs from the bash, the plan says so in its notes:

* ``--enable_dev_version=...`` (PaddleOCR, PaddleClas) is not passed: paddle2onnx 1.0 and later have a
  single converter and refuse the flag, and no release without the flag reads paddle 3's ``.json``
  programs;
* inference needs a passed conversion, a conversion an exported model: the export stage of the chain
  (PaddleDetection), else the model files the config names (``Stage.inputs``: missing, the stage is
  blocked with the path), as a train chain of the same run or the suite's ``prepare.sh`` leaves them;
* each stage's status is its own (PaddleClas logged the conversion's status for its inference);
* a GPU case under ``--device cpu`` is skipped with its reason;
* PaddleOCR layouts also run the predictor on the Paddle model (``infer_paddle[...]``, no
  ``--use_onnx``) and an ``agree[...]`` check: the ONNX predictions must match those of Paddle
  Inference from the same export (texts equal, scores within the golden tolerance,
  ``tipc.golden.agreement``), so a conversion that silently changes the model fails. Neither writes a
  status line: the bash has no such stage.
"""

from __future__ import annotations

from dataclasses import dataclass

from tipc.config.bounds import MAX_STAGES, excerpt
from tipc.config.model import NULL, Field
from tipc.dialects.paddleocr.config.paddle2onnx import Paddle2OnnxConfig
from tipc.errors import ConfigError
from tipc.files.write import component, name_part
from tipc.plan.env import whole_infer_env
from tipc.plan.fragments import GAP, Command, Fragment, assemble, command_stage, config_text, literal, set_param
from tipc.plan.model import Chain, PlanOptions, Skipped, Stage, StageKind, Topology
from tipc.plan.naming import stage_id
from tipc.plan.topology import CPU_ENTRY

CHAIN = "paddle2onnx"
STATUS_LOG = "results_paddle2onnx.log"
DEV_FLAG = "--enable_dev_version"
USE_ONNX = literal("--use_onnx=True")
# PaddleOCR's script converts both models of these, and the det model (with the dev converter) of the tables.
SYSTEM_MODELS = ("ch_PP-OCRv2", "ch_PP-OCRv3", "ch_ppocr_mobile_v2_0", "ch_ppocr_server_v2_0")
TABLE_MODELS = ("slanet", "en_table_structure")
# PaddleDetection's infer_mode → the line of its export script.
DET_EXPORTS = {"norm": "norm_export", "quant": "quant_export", "fpgm": "fpgm_export",
               "distill": "distill_export", "kl_quant": "kl_quant_export"}  # fmt: skip
# What each suite's status_check writes after the log path.
STATUS_TAILS = {"PaddleOCR": " ", "PaddleClas": " ! ", "PaddleDetection": "  ", "PaddleSeg": "  "}
# paddle2onnx 2.x folds constants with Polygraphy, which it tells to pip-install what it misses
# (onnx_graphsurgeon) from an outside index at run time: ten retries offline, then an unfolded model and
# exit 0. A test run must not change the stage's environment: the ``onnx`` extra brings what folding
# needs, and a conversion's pip may use no index, so a missing module fails at once, named in its log.
NO_INSTALL = {"PIP_NO_INDEX": "1"}
_TOPOLOGY = Topology("cpu", CPU_ENTRY)
_DEVICES = {"False": "cpu", "cpu": "cpu", "True": "gpu", "gpu": "gpu"}


@dataclass(frozen=True, slots=True)
class P2oPlan:
    output_dir: str
    chains: tuple[Chain, ...]
    skipped: tuple[Skipped, ...]
    notes: tuple[str, ...]
    status_tail: str


@dataclass(frozen=True, slots=True)
class _Ctx:
    config: Paddle2OnnxConfig
    options: PlanOptions
    python: Fragment
    log_path: str  # LOG_PATH as the bash spells it

    def log(self, name: str) -> str:
        return f"{self.log_path}/{name}"

    def field(self, role: str) -> Field:
        return self.config[role]

    def own(self, role: str) -> Fragment:
        """func_set_params of a line's own key and value."""
        return self.param(role, self.field(role).raw)

    def param(self, key_role: str, value: str | None) -> Fragment:
        field = self.field(key_role)
        return set_param(field.key, value, self.config.path, field)

    def kept(self, value: str) -> str:
        """A path the chain writes (an ONNX file, an export), as the config spells it while it stays in
        the checkout: the predictor reads it there, as the bash's did (PaddleClas's from its own model
        dir). One that would leave the checkout (absolute, or climbing with ``..``) is written inside
        ``LOG_PATH`` instead, as one name, as the train chain's save dirs are: nothing a config says
        writes outside the output root."""
        if not value.strip().startswith("/") and ".." not in value.strip().split("/"):
            return value
        return f"{self.log_path.rstrip('/')}/{component(name_part(value.strip()))}"

    def script(self, role: str) -> Fragment:
        field = self.field(role)
        return config_text(field.raw, self.config.path, field)

    @property
    def env(self) -> dict[str, str | None]:
        """test_paddle2onnx.sh sets no device; --device cpu removes CUDA_VISIBLE_DEVICES, as in whole_infer."""
        return whole_infer_env(None, self.options.device == "cpu")

    def stage(
        self,
        chain: str,
        name: str,
        kind: StageKind,
        command: Command,
        log: str,
        *,
        requires: tuple[str, ...] = (),
        outputs: tuple[str, ...] = (),
        inputs: tuple[str, ...] = (),
        cwd: str | None = None,  # None: the repo
        legacy_log: str | None = None,  # None: ``log``
        status_line: bool = True,
    ) -> Stage:
        cwd = self.options.repo if cwd is None else cwd
        env = {**self.env, **NO_INSTALL} if kind is StageKind.CONVERT else self.env
        return command_stage(
            chain, name, kind, command, env, log, cwd, legacy_log=legacy_log, requires=requires, outputs=outputs,
            inputs=inputs, status_line=status_line,
        )  # fmt: skip


def paddle2onnx_plan(config: Paddle2OnnxConfig, options: PlanOptions, python: str) -> P2oPlan:
    """The layout's stages; ``python``: the interpreter resolved for the config's python line."""
    modes = config.fields.get("infer_mode")
    if modes is not None and len(modes.values()) * 3 > MAX_STAGES:  # PaddleDetection: 3 stages per item
        message = f"{len(modes.values())} infer_mode items make over {MAX_STAGES} stages: expected a shorter list"
        raise ConfigError(config.path, modes.line, message)
    build = {"PaddleOCR": _ocr, "PaddleClas": _clas, "PaddleDetection": _det, "PaddleSeg": _seg}[config.layout]
    root = options.output_root.rstrip("/") or "."
    model = component(name_part(config.model_name.value))
    # PaddleSeg's script never sets MODE: its LOG_PATH ends in "/" and its logs are "<dir>//name".
    sub = {"PaddleOCR": "paddle2onnx", "PaddleSeg": ""}.get(config.layout, "paddle2onnx_infer")
    log_path = f"{root}/{model}/{sub}"
    ctx = _Ctx(config, options, literal(python), log_path)
    stages, skipped, notes = build(ctx)
    notes = [
        f"{config.layout} layout: read as {config.layout}'s test_tipc/test_paddle2onnx.sh reads it; status lines "
        f"go to {STATUS_LOG}",
        *notes,
        "each conversion runs with PIP_NO_INDEX=1: paddle2onnx's constant folding would pip-install what it misses "
        "at run time; the onnx extra brings it (onnx-graphsurgeon)",
    ]
    chains = _chains(stages)
    out = log_path.rstrip("/") if sub else log_path
    return P2oPlan(out, chains, tuple(skipped), tuple(notes), STATUS_TAILS[config.layout])


def _chains(stages: list[Stage]) -> tuple[Chain, ...]:
    by_chain: dict[str, list[Stage]] = {}
    for stage in stages:
        by_chain.setdefault(stage.chain, []).append(stage)
    return tuple(Chain(cid, "", "", _TOPOLOGY, "", tuple(s)) for cid, s in by_chain.items())


def _convert(
    ctx: _Ctx,
    chain: str,
    name: str,
    model_dir: tuple[Fragment, str],
    save: tuple[Fragment, str],
    tail: str,
    log: str,
    extra: tuple[Fragment, ...] = (),
    requires: tuple[str, ...] = (),
) -> Stage:
    """``<cmd> <dir> <model file> <params file> <save> <opset> <checker> [extra]`` + the layout's redirection
    ``tail``. ``model_dir``/``save``: the fragment and the path it names. Without a stage of the chain
    that makes the model (``requires``), the model file is an input: missing, the stage is blocked."""
    parts = (
        ctx.script("convert"), model_dir[0], ctx.own("model_filename"), ctx.own("params_filename"), save[0],
        ctx.own("opset_version"), ctx.own("enable_onnx_checker"), *extra,
    )  # fmt: skip
    command = assemble(parts)
    model_file, source = ctx.field("model_filename"), model_dir[1].strip()
    model = f"{source.rstrip('/')}/{model_file.value}" if not model_file.is_null else source
    return ctx.stage(
        chain,
        name,
        StageKind.CONVERT,
        Command(command.argv, command.text + tail.format(log=log)),
        log,
        requires=requires,
        outputs=(save[1].strip(),) if save[1].strip() else (),
        inputs=(model,) if source and not requires else (),
    )


def _own_path(ctx: _Ctx, role: str) -> tuple[Fragment, str]:
    return ctx.own(role), ctx.field(role).raw


def _save_path(ctx: _Ctx, role: str) -> tuple[Fragment, str]:
    """A line's own key with the path it names to write, kept inside the output root (``_Ctx.kept``)."""
    path = ctx.kept(ctx.field(role).raw)
    return ctx.param(role, path), path


def _key_path(ctx: _Ctx, key: str, role: str, value: str) -> tuple[Fragment, str]:
    """``key=value`` with a key the bash's template spells itself, located at ``role``'s line."""
    field = ctx.field(role)
    return set_param(key, value, ctx.config.path, field), value


def _dev_note(value: str) -> str:
    return (
        f"test_paddle2onnx.sh adds {DEV_FLAG}={value} to each conversion; tipc does not pass it: paddle2onnx 1.0 "
        "and later have one converter and refuse the flag, and no release without it reads paddle 3's .json programs"
    )


# --- PaddleOCR ---------------------------------------------------------------------------------------


def _ocr_parts(name: str) -> tuple[tuple[str, ...], str]:
    """The models PaddleOCR's script converts for ``name``, and its dev-version value."""
    if name in SYSTEM_MODELS:
        return ("det", "rec"), "False"
    if "det" in name:
        return ("det",), "False"
    if "rec" in name:
        return ("rec",), "False"
    if name in TABLE_MODELS:
        return ("det",), "True"
    return (), ""


def _ocr(ctx: _Ctx) -> tuple[list[Stage], list[Skipped], list[str]]:
    name = ctx.config.model_name.value
    parts, dev = _ocr_parts(name)
    if not parts:
        reason = (
            f"model_name '{excerpt(name)}' is none of PaddleOCR's system or table models and holds neither 'det' "
            "nor 'rec': test_paddle2onnx.sh converts nothing and runs no predictor for it"
        )
        return [], [Skipped(CHAIN, reason)], []
    stages, skipped = [], []
    converts = []
    for part in parts:
        log = ctx.log(f"trans_model_{part}.log")
        model_dir = _key_path(ctx, "--model_dir", f"{part}_model_dir", ctx.field(f"{part}_model_dir").raw)
        save = _key_path(ctx, "--save_file", f"{part}_save_file", ctx.kept(ctx.field(f"{part}_save_file").raw))
        converts.append(_convert(ctx, CHAIN, f"convert_{part}", model_dir, save, " > {log} 2>&1 ", log))
    stages.extend(converts)
    infer_py = ctx.script("inference")
    use_gpu = ctx.field("use_gpu")
    for value in use_gpu.values():
        device = _DEVICES.get(value)
        if device is None:
            skipped.append(Skipped(stage_id(CHAIN, f"infer_onnx[{value}]"), f"{use_gpu.key} value '{excerpt(value)}'"
                                   " is neither CPU nor GPU: test_paddle2onnx.sh runs nothing for it"))  # fmt: skip
            continue
        if device == "gpu" and ctx.options.device == "cpu":
            skipped.append(Skipped(stage_id(CHAIN, f"infer_onnx[{device}]"), "--device cpu: GPU inference skipped"))
            continue
        gpu = ctx.param("use_gpu", value)
        images = ctx.own("image_dir")
        onnx_models = [ctx.param(f"{p}_model_key", ctx.kept(ctx.field(f"{p}_save_file").raw)) for p in parts]
        log = ctx.log(f"paddle2onnx_infer_{device}.log")
        onnx = assemble((ctx.python, infer_py, gpu, images, *onnx_models, USE_ONNX), log)
        needs = tuple(s.id for s in converts)
        stages.append(ctx.stage(CHAIN, f"infer_onnx[{device}]", StageKind.INFER, onnx, log, requires=needs))
        paddle_models = [ctx.param(f"{p}_model_key", ctx.field(f"{p}_model_dir").raw) for p in parts]
        ref_log = ctx.log(f"paddle_infer_{device}.log")
        ref = assemble((ctx.python, infer_py, gpu, images, *paddle_models), ref_log)
        reference = ctx.stage(
            CHAIN, f"infer_paddle[{device}]", StageKind.INFER, ref, ref_log,
            inputs=tuple(i for s in converts for i in s.inputs), status_line=False,
        )  # fmt: skip
        stages.append(reference)
        agree_log = ctx.log(f"agree_{device}.log")
        stages.append(
            Stage(
                id=stage_id(CHAIN, f"agree[{device}]"),
                chain=CHAIN,
                name=f"agree[{device}]",
                kind=StageKind.AGREE,
                argv=(),
                env={},
                cwd=ctx.options.repo,
                log=agree_log,
                requires=(reference.id, stages[-2].id),
                golden_dir=ctx.options.golden_dir,
            )
        )
    notes = [_dev_note(dev)]
    return stages, skipped, notes


# --- PaddleClas, PaddleSeg, PaddleDetection -----------------------------------------------------------


def _clas(ctx: _Ctx) -> tuple[list[Stage], list[Skipped], list[str]]:
    log = ctx.log("trans_model.log")
    convert = _convert(
        ctx, CHAIN, "convert", _own_path(ctx, "model_dir"), _save_path(ctx, "save_file"), " > {log} 2>&1", log
    )
    notes = [_dev_note("False"), _no_agreement("PaddleClas")]
    if ctx.field("inference").value == NULL:
        return [convert], [Skipped(stage_id(CHAIN, "infer_onnx[cpu]"), "inference line is null: no predictor")], notes
    infer_log = ctx.log("paddle2onnx_infer_cpu.log")
    flag = literal("-o")
    command = assemble(
        (ctx.python, ctx.script("inference"), flag, ctx.own("inference_model_dir"), flag, ctx.own("use_onnx"),
         flag, ctx.own("hardware"), ctx.own("inference_config")),
    )  # fmt: skip
    # The bash runs it as `cd deploy && ... && cd ../`: its cwd is deploy/, its log the same file.
    text = f"cd deploy && {command.text} > {infer_log} 2>&1 && cd ../"
    cwd = f"{ctx.options.repo.rstrip('/')}/deploy"
    infer = ctx.stage(
        CHAIN, "infer_onnx[cpu]", StageKind.INFER, Command(command.argv, text), f"../{infer_log}",
        requires=(convert.id,), cwd=cwd, legacy_log=infer_log,
    )  # fmt: skip
    notes.append(
        "PaddleClas's script logs the conversion's exit status for its inference line; tipc logs the inference's own"
    )
    return [convert, infer], [], notes


def _seg(ctx: _Ctx) -> tuple[list[Stage], list[Skipped], list[str]]:
    log = ctx.log("trans_model.log")
    convert = _convert(
        ctx, CHAIN, "convert", _own_path(ctx, "model_dir"), _save_path(ctx, "save_file"), " >{log} 2>&1", log
    )
    infer_log = ctx.log("paddle2onnx_infer_cpu.log")
    command = assemble(
        (
            ctx.python,
            ctx.script("inference"),
            ctx.own("image_dir"),
            ctx.param("model_key", ctx.kept(ctx.field("save_file").raw)),
        ),
        infer_log,
    )
    infer = ctx.stage(CHAIN, "infer_onnx[cpu]", StageKind.INFER, command, infer_log, requires=(convert.id,))
    notes = [
        "PaddleSeg's script never sets MODE: its logs go to <model>/ itself, spelled '<model>//<log>' as it does",
        _no_agreement("PaddleSeg"),
    ]
    return [convert, infer], [], notes


def _det(ctx: _Ctx) -> tuple[list[Stage], list[Skipped], list[str]]:
    config, stages, skipped = ctx.config, [], []
    modes = ctx.field("infer_mode")
    model = config.model_name.raw
    export_dir = ctx.kept(f"{ctx.kept(ctx.field('save_export').raw)}/{model}")
    for mode in modes.values():
        chain = f"{CHAIN}_{mode}"
        requires: tuple[str, ...] = ()
        if mode != NULL:
            role = DET_EXPORTS.get(mode)
            if role is None:
                raise ConfigError(
                    config.path, modes.line, f"infer_mode '{excerpt(mode)}': expected one of {', '.join(DET_EXPORTS)}"
                )
            export = _det_export(ctx, chain, role)
            if export is None:
                skipped.append(Skipped(stage_id(chain, "export"), f"{role} (line {ctx.field(role).line}) is null"))
            else:
                stages.append(export)
                requires = (export.id,)
        stages.extend(_det_convert_infer(ctx, chain, export_dir, requires))
    return stages, skipped, [_no_agreement("PaddleDetection")]


def _det_export(ctx: _Ctx, chain: str, role: str) -> Stage | None:
    script = ctx.field(role)
    if script.is_null:
        return None
    log = ctx.log("export.log")
    command = assemble(
        (ctx.python, ctx.script(role), ctx.own("export_weight"), ctx.param("filename", ctx.config.model_name.raw),
         ctx.own("export_param"), _save_path(ctx, "save_export")[0], GAP),
    )  # fmt: skip
    out = (
        f"{ctx.kept(ctx.field('save_export').value)}/{ctx.config.model_name.value}/{ctx.field('model_filename').value}"
    )
    return ctx.stage(chain, "export", StageKind.EXPORT, command, log, outputs=(out,))


def _det_convert_infer(ctx: _Ctx, chain: str, export_dir: str, requires: tuple[str, ...]) -> list[Stage]:
    save = ctx.kept(f"{export_dir}/{ctx.field('save_file').raw}")
    log = ctx.log("trans_model.log")
    convert = _convert(
        ctx, chain, "convert", (ctx.param("model_dir", export_dir), export_dir), (ctx.param("save_file", save), save),
        "", log, (ctx.own("convert_param1"),), requires,
    )  # fmt: skip
    infer_log = ctx.log("paddle2onnx_infer_cpu.log")
    command = assemble(
        (ctx.python, ctx.script("inference"), ctx.param("infer_cfg", f"{export_dir}/infer_cfg.yml"),
         ctx.param("onnx_file", save), ctx.own("image_file"), ctx.own("infer_param1")),
    )  # fmt: skip
    infer = ctx.stage(chain, "infer_onnx[cpu]", StageKind.INFER, command, infer_log, requires=(convert.id,))
    return [convert, infer]


def _no_agreement(suite: str) -> str:
    return (
        f"no agreement check: tipc reads no predictions of {suite}'s predictors, so ONNX Runtime's output is "
        "not compared with Paddle Inference's"
    )
