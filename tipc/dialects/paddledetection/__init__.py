"""PaddleDetection's ``test_tipc``: its dialect (``tipc plan --suite PaddleDetection``), added through the same hook
a plugin uses (``pytest_tipc_add_dialects``, registered by the ``tipc`` entry point ``paddledetection``).

Its planner (``planner``: the train, benchmark_train and device-script configs), offline data maker (COCO-style
json), predictor reader (the boxes of each image), eval figures (mAP, AP50) and the weights its yml makes a
training load (``ymlweights``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tipc.dialects.paddledetection import figures, planner, predictions
from tipc.plan.model import Plan
from tipc.suites import tags
from tipc.suites.dialect import Dialect
from tipc.suites.prepare import deferred

if TYPE_CHECKING:
    from tipc.suites.downloads import Implied


def _implied_weights(plan: Plan) -> tuple[Implied, ...]:
    """The yml's pretrain_weights, read when a run starts (``ymlweights``)."""
    from tipc.dialects.paddledetection import ymlweights

    return ymlweights.implied(plan)


PADDLEDETECTION = Dialect(
    planner.NAME,
    ("ppdet",),
    planner.load,
    planner.modes,
    planner.build,
    devices=planner.DEVICES,
    tags=tags.model_tags,
    prepare=deferred("tipc.dialects.paddledetection.prepare", "prepare_coco"),
    predictions=predictions.detection,
    figures=figures.FIGURES,
    implied_weights=_implied_weights,
    description="PaddleDetection's test_tipc/test_train_inference_python.sh",
)


def pytest_tipc_add_dialects() -> list[Dialect[Any]]:
    return [PADDLEDETECTION]
