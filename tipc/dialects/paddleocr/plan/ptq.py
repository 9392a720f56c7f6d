"""The chain of ``test_ptq_inference_python.sh`` (docs/spec.md §1.7, §3.6): KL quantization, then inference.

One chain per model ``k`` of the infer_model line, in whole_infer (the only mode the script runs):

* an export stage, as the bash logs it (``<mode dir>/whole_infer_export_<k>.log``), unless the k-th
  infer_export item is null or missing: ``<python> <quantizer> <weights key>=<model>
  <save key>=<model>_klquant``. The sweep then reads ``<model>_klquant``, spelled as the bash spells
  it (a model ending in ``/`` gets ``<model>/_klquant``, inside it); without a quantizer, the model.
* the inference sweep of the train script (same loops, fragment order, CPU rules, always-written
  device flag), except where this script differs:

  - every model is treated as quantized: the script hard-codes its quant flag and never reads the
    infer_quant line, so only int8 cells run;
  - its GPU rule is only "quantized needs int8" (``ptq_gpu_skip_rule``): int8 runs on GPU without
    TensorRT, which the train script never does;
  - log names have no ``gpus_<id>`` segment;
  - it reads only its first 17 lines (B15): the save_log, ``--benchmark`` and extra-parameter lines
    after them are never passed.

As for the train script, tipc adds: the infer stages need a passed quantization (the bash inferred
with whatever was on disk), several models' infer logs get a prefix instead of overwriting each
other, ``--device cpu`` and whole_infer's GPU argument set the environment as in whole_infer, and
every dropped cell and unread line is listed in the plan.
"""

from __future__ import annotations

from dataclasses import replace

from tipc.config.bounds import excerpt
from tipc.config.model import NULL, Field
from tipc.dialects.paddleocr.config.ptq import UNREAD_ROLES, PtqConfig
from tipc.dialects.paddleocr.config.values import paired
from tipc.dialects.paddleocr.plan.chains import NO_EXPORT, Built, Context, model_export, sweep_stages
from tipc.plan.env import whole_infer_env
from tipc.plan.fragments import set_param
from tipc.plan.model import Chain, Stage, Topology
from tipc.plan.naming import whole_infer_chain_id

KL_SUFFIX = "_klquant"  # the script names the quantized model <model>_klquant
QUANT = True  # the script's quant flag, whatever infer_quant says
_NOT_READ = Field(NULL, NULL, 0)


def quantized_dir(model: str) -> str:
    return model + KL_SUFFIX


def ptq_gpu_skip_rule(use_tensorrt: str, precision: str, quant: bool) -> str | None:
    """The script's only GPU rule: an exact match (the train script tests substrings), TensorRT not asked."""
    if quant and precision != "int8":
        return f"quantized model on GPU needs precision int8 (precision={precision})"
    return None


def ptq_chain(ctx: Context[PtqConfig], index: int, model: str, topology: Topology, infer_prefix: str = "") -> Built:
    """Quantize model ``index`` unless its quantizer is null, then run the sweep on the result."""
    cfg, path = ctx.config, ctx.config.path
    chain = whole_infer_chain_id(index)
    env = whole_infer_env(ctx.options.whole_infer_gpu, ctx.cpu_only)
    stages: list[Stage] = []
    model_dir = model
    script = paired(cfg.infer_export.values(), index)
    if script not in NO_EXPORT:
        model_dir = quantized_dir(model)
        # Both values are config text of the infer_model line, split as the shell would.
        weights = set_param(cfg.weights.key, model, path, cfg.infer_model)
        save = set_param(cfg.save_inference_dir.key, model_dir, path, cfg.infer_model)
        stages.append(model_export(ctx, chain, index, script, weights, save, model_dir, env))
    infer, dropped = sweep_stages(
        replace(ctx, config=_as_read(cfg)),
        chain,
        None,
        QUANT,
        set_param(cfg.model_dir.key, model_dir, path, cfg.infer_model),
        ctx.own(cfg.image_dir),
        env,
        tuple(s.id for s in stages),
        False,
        infer_prefix,
        ptq_gpu_skip_rule,
    )
    return Built(Chain(chain, "", "", topology, "", tuple(stages + infer)), dropped)


def ptq_notes(config: PtqConfig) -> tuple[str, ...]:
    """What the script does not read, and where the quantized models go when that surprises."""
    notes = []
    for role in UNREAD_ROLES:
        field: Field = getattr(config, role)
        if field.line and not field.is_null:
            notes.append(
                f"line {field.line} ('{excerpt(field.key)}:{excerpt(field.value)}', role {role}) is not passed: "
                "test_ptq_inference_python.sh reads only its first 17 lines (docs/spec.md B15)"
            )
    quant = config.infer_quant
    if any(value != "True" for value in quant.values()):
        notes.append(
            f"{quant.key} (line {quant.line}) '{excerpt(quant.value)}' is not read: test_ptq_inference_python.sh "
            "treats every model as quantized (only int8 cases run)"
        )
    exports = config.infer_export.values()
    for index, model in enumerate(config.infer_model.values()):
        if model.endswith("/") and paired(exports, index) not in NO_EXPORT:
            notes.append(
                f"the quantized model of '{excerpt(model)}' goes inside it, to '{excerpt(quantized_dir(model))}' "
                f"({config.infer_model.key}, line {config.infer_model.line}, ends with '/'; the bash's path)"
            )
    return tuple(notes)


def _as_read(config: PtqConfig) -> PtqConfig:
    """The config as the script reads it: the lines after its 17th are empty."""
    return replace(config, save_log=_NOT_READ, benchmark=_NOT_READ, infer_param1=_NOT_READ, extra=_NOT_READ)
