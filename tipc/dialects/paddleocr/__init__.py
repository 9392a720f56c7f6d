"""PaddleOCR's TIPC (``test_tipc/``): its dialect, registered through ``pytest_tipc_add_dialects``.

Its config reader (``config``: the train, KL quantization and paddle2onnx formats), planner (``plan``), offline data
maker (``prepare``), device scripts (``devices``) and the doctor's question (``doctor``). The paddle2onnx reader
knows every suite's layout of that section, so this dialect reads the paddle2onnx configs of any checkout
(``claims``); and tipc's own example configs, which lie in no checkout, are in PaddleOCR's layout (``default``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tipc.config.modes import Mode
from tipc.config.tags import tag_words
from tipc.dialects.paddleocr import devices, doctor
from tipc.dialects.paddleocr.config.formats import (
    AnyConfig,
    check_mode,
    config_modes,
    is_paddle2onnx_file,
    load_any_config,
    parse_any_config_text,
)
from tipc.dialects.paddleocr.plan.builder import build_plan
from tipc.plan.interpreter import PythonCheck
from tipc.plan.model import Plan, PlanOptions
from tipc.prepare.sizes import Sizes
from tipc.suites.dialect import Dialect, Prepared

NAME = "PaddleOCR"


def _modes(config: AnyConfig) -> tuple[Mode, ...]:
    return config_modes(config)


def _build(config: AnyConfig, options: PlanOptions, check: PythonCheck) -> Plan:
    return build_plan(config, options, check)


def _prepare(plan: Plan, repo: Path, sizes: Sizes, seed: int, force: bool) -> Prepared:
    """Imported when ``tipc prepare`` runs: a run's start needs none of the drawing code."""
    from tipc.dialects.paddleocr.prepare.run import prepare

    return prepare(plan, repo, sizes, seed, force)


DIALECT: Dialect[AnyConfig] = Dialect(
    NAME,
    ("ppocr",),
    load_any_config,
    _modes,
    _build,
    patterns=("train_*.txt",),
    excludes=(),
    tags=tag_words,
    description="PaddleOCR's test_train_inference_python.sh and test_ptq_inference_python.sh (tipc's first)",
    prepare=_prepare,
    devices=devices.DEVICES,
    check_mode=check_mode,
    parse=parse_any_config_text,
    claims=is_paddle2onnx_file,
    wants_gpu=doctor.wants_gpu,
    default=True,
)


def pytest_tipc_add_dialects() -> list[Dialect[Any]]:
    return [DIALECT]
