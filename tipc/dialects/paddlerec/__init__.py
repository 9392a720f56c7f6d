"""PaddleRec's ``test_tipc``: its dialect (``tipc plan --suite PaddleRec``), added through the same hook a plugin
uses (``pytest_tipc_add_dialects``, registered by the ``tipc`` entry point ``paddlerec``)."""

from __future__ import annotations

from typing import Any

from tipc import Dialect
from tipc.dialects.paddlerec import devices, planner, predictions

PADDLEREC = Dialect(
    planner.NAME,
    ("models/rank",),
    planner.load,
    planner.modes,
    planner.build,
    tags=planner.tags,
    predictions=predictions.batches,
    devices=devices.DEVICES,
    description="PaddleRec's test_tipc/test_train_inference_python.sh",
)


def pytest_tipc_add_dialects() -> list[Dialect[Any]]:
    return [PADDLEREC]
