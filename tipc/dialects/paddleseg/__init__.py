"""PaddleSeg's ``test_tipc``: its dialect (``tipc plan --suite PaddleSeg``), added through the same hook a plugin
uses (``pytest_tipc_add_dialects``, registered by the ``tipc`` entry point ``paddleseg``).

Its planner (``planner``: the train, benchmark_train and device-script configs, and the files an export's
``deploy.yaml`` names), offline data maker (image/label pairs), predictor reader (the masks it saves) and figures
(eval mIoU, the trainer's step timings).
"""

from __future__ import annotations

from typing import Any

from tipc.dialects.paddleseg import figures, planner, predictions
from tipc.suites import tags
from tipc.suites.dialect import Dialect
from tipc.suites.prepare import deferred

PADDLESEG = Dialect(
    planner.NAME,
    ("paddleseg",),
    planner.load,
    planner.modes,
    planner.build,
    devices=planner.DEVICES,
    tags=tags.model_tags,
    prepare=deferred("tipc.dialects.paddleseg.prepare", "prepare_pairs"),
    predictions=predictions.segmentation_masks,
    figures=figures.FIGURES,
    manifests=planner.MANIFESTS,
    description="PaddleSeg's test_tipc/test_train_inference_python.sh",
)


def pytest_tipc_add_dialects() -> list[Dialect[Any]]:
    return [PADDLESEG]
