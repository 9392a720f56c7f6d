"""``tipc prepare`` for a PaddleOCR config (``Dialect.prepare``): the data sets its plan's stages read, made."""

from __future__ import annotations

from pathlib import Path

from tipc.config.model import TipcConfig
from tipc.dialects.paddleocr.config.formats import load_any_config
from tipc.dialects.paddleocr.config.ptq import PtqConfig
from tipc.dialects.paddleocr.prepare.apply import apply_job
from tipc.dialects.paddleocr.prepare.targets import plan_prepare
from tipc.errors import ConfigError
from tipc.plan.model import Plan
from tipc.prepare.sizes import Sizes
from tipc.suites.dialect import Prepared


def prepare(plan: Plan, repo: Path, sizes: Sizes, seed: int, force: bool) -> Prepared:
    """Each data set made (or found in place), one line each; the models whole_infer needs that only a train run
    makes are what is missing."""
    config = load_any_config(plan.config_path)
    if isinstance(config, PtqConfig):
        raise ConfigError(
            plan.config_path,
            config.header_line,
            "prepare: KL quantization configs are not supported offline yet (only train configs): "
            "the quantizer needs the real inference model and its training data",
        )
    if not isinstance(config, TipcConfig):
        raise ConfigError(
            plan.config_path,
            config.header_line,
            "prepare: paddle2onnx configs are not prepared offline (only train configs): their conversion needs "
            "an exported model (a train config's export, or the suite's prepare.sh)",
        )
    job = plan_prepare(config, plan, sizes, seed)
    made = [
        f"{done.action.value:<11} {done.target.count:>6} images  {_shown(done.where, repo)}"
        for done in apply_job(job, force=force)
    ]
    if not job.targets:
        made.append(f"nothing to make for {plan.mode}")
    missing = tuple(
        f"{plan.config_path}:{model.line}: whole_infer needs the "
        f"{'checkpoint' if model.is_checkpoint else 'inference model'} '{model.path}', which cannot be made offline: "
        "it must come from a train run (e.g. `tipc run --mode lite_train_lite_infer`, then export it to that path)"
        for model in job.missing_models
    )
    return Prepared(tuple(made), missing)


def _shown(path: Path, repo: Path) -> str:
    try:
        return path.relative_to(repo).as_posix()
    except ValueError:
        return str(path)
