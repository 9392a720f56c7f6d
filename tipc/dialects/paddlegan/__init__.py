"""PaddleGAN's ``test_tipc``: its dialect (``tipc plan --suite PaddleGAN``), added through the same hook a plugin
uses (``pytest_tipc_add_dialects``, registered by the ``tipc`` entry point ``paddlegan``)."""

from __future__ import annotations

from typing import Any

from tipc import Dialect
from tipc.dialects.paddlegan import devices, planner, predictions

PADDLEGAN = Dialect(
    planner.NAME,
    ("ppgan",),
    planner.load,
    planner.modes,
    planner.build,
    tags=planner.tags,
    predictions=predictions.metrics,
    devices=devices.DEVICES,
    description="PaddleGAN's test_tipc/test_train_inference_python.sh",
)


def pytest_tipc_add_dialects() -> list[Dialect[Any]]:
    return [PADDLEGAN]
