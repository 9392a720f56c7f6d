"""PaddleClas's ``test_tipc``: its dialect (``tipc plan --suite PaddleClas``), added through the same hook a plugin
uses (``pytest_tipc_add_dialects``, registered by the ``tipc`` entry point ``paddleclas``).

Its planner (``planner``: the train, benchmark_train and device-script configs), offline data maker (ImageNet-style
class lists), predictor reader (the top-k lines) and eval figures (top-1).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tipc.dialects.paddleclas import planner
from tipc.plan.model import Plan
from tipc.suites import figures, predictors, tags
from tipc.suites.dialect import Dialect

if TYPE_CHECKING:
    from tipc.prepare.sizes import Sizes


def _prepare(plan: Plan, repo: Path, sizes: Sizes, seed: int, force: bool) -> list[str]:
    """Imported when ``tipc prepare`` runs: a run's start needs none of the drawing code."""
    from tipc.suites import prepare

    return prepare.prepare_imagenet(plan, repo, sizes, seed, force)


PADDLECLAS = Dialect(
    planner.NAME,
    ("ppcls",),
    planner.load,
    planner.modes,
    planner.build,
    devices=planner.DEVICES,
    tags=tags.model_tags,
    prepare=_prepare,
    predictions=predictors.classification,
    figures=figures.CLASSIFICATION,
    description="PaddleClas's test_tipc/test_train_inference_python.sh",
)


def pytest_tipc_add_dialects() -> list[Dialect[Any]]:
    return [PADDLECLAS]
