"""PaddleSpeech's TIPC (``tests/test_tipc/``): its dialect, registered through ``pytest_tipc_add_dialects``."""

from __future__ import annotations

from typing import Any

from tipc import Dialect
from tipc.dialects.paddlespeech import plan

DIALECT = Dialect(
    plan.NAME,
    ("../paddlespeech",),  # the checkout tipc runs from is ``tests/``; the package sits beside it
    plan.load,
    plan.modes,
    plan.build,
    description="PaddleSpeech's tests/test_tipc/test_train_inference_python.sh",
)


def pytest_tipc_add_dialects() -> list[Dialect[Any]]:
    return [DIALECT]
