"""PaddleClas's ``test_tipc``: its dialect (``tipc plan --suite PaddleClas``), added through the same hook a plugin
uses (``pytest_tipc_add_dialects``, registered by the ``tipc`` entry point ``paddleclas``).

Its planner (``planner``: the train, benchmark_train and device-script configs), offline data maker (ImageNet-style
class lists), predictor reader (the top-k lines) and eval figures (top-1).
"""

from __future__ import annotations

from typing import Any

from tipc.dialects.paddleclas import figures, planner, predictions
from tipc.suites import tags
from tipc.suites.dialect import Dialect
from tipc.suites.prepare import deferred

PADDLECLAS = Dialect(
    planner.NAME,
    ("ppcls",),
    planner.load,
    planner.modes,
    planner.build,
    devices=planner.DEVICES,
    tags=tags.model_tags,
    prepare=deferred("tipc.dialects.paddleclas.prepare", "prepare_imagenet"),
    predictions=predictions.classification,
    figures=figures.FIGURES,
    description="PaddleClas's test_tipc/test_train_inference_python.sh",
)


def pytest_tipc_add_dialects() -> list[Dialect[Any]]:
    return [PADDLECLAS]
