"""PaddleVideo's TIPC (``test_tipc/``): its dialect, registered through ``pytest_tipc_add_dialects``."""

from __future__ import annotations

from typing import Any

from tipc import Dialect
from tipc.dialects.paddlevideo import devices, plan, predict
from tipc.layout import model_tags

DIALECT = Dialect(
    plan.NAME,
    ("paddlevideo",),
    plan.load,
    plan.modes,
    plan.build,
    tags=model_tags,
    predictions=predict.top1,
    devices=devices.DEVICES,
    description="PaddleVideo's test_tipc/test_train_inference_python.sh",
)


def pytest_tipc_add_dialects() -> list[Dialect[Any]]:
    return [DIALECT]
