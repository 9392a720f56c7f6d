"""PaddleSeg's ``test_tipc``: its dialect (``tipc plan --suite PaddleSeg``), added through the same hook a plugin
uses (``pytest_tipc_add_dialects``, registered by the ``tipc`` entry point ``paddleseg``).

Its planner (``planner``: the train, benchmark_train and device-script configs, and the files an export's
``deploy.yaml`` names), offline data maker (image/label pairs), predictor reader (the masks it saves) and figures
(eval mIoU, the trainer's step timings).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tipc.dialects.paddleseg import planner
from tipc.plan.model import Plan
from tipc.suites import figures, predictors, tags
from tipc.suites.dialect import Dialect

if TYPE_CHECKING:
    from tipc.prepare.sizes import Sizes


def _prepare(plan: Plan, repo: Path, sizes: Sizes, seed: int, force: bool) -> list[str]:
    """Imported when ``tipc prepare`` runs: a run's start needs none of the drawing code."""
    from tipc.suites import prepare

    return prepare.prepare_pairs(plan, repo, sizes, seed, force)


PADDLESEG = Dialect(
    planner.NAME,
    ("paddleseg",),
    planner.load,
    planner.modes,
    planner.build,
    devices=planner.DEVICES,
    tags=tags.model_tags,
    prepare=_prepare,
    predictions=predictors.segmentation_masks,
    figures=figures.SEGMENTATION,
    manifests=planner.MANIFESTS,
    description="PaddleSeg's test_tipc/test_train_inference_python.sh",
)


def pytest_tipc_add_dialects() -> list[Dialect[Any]]:
    return [PADDLESEG]
