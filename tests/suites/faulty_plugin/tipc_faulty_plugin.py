"""A plugin whose every tipc hook misbehaves as ``TIPC_TEST_FAULT`` says: ``raise``, ``hang`` (until
``RELEASE`` is set), ``junk`` (an answer of the wrong type) or ``hostile`` (an answer JSON cannot hold: an
object, a 100,000-deep list, NaN and Infinity); or ``mixed``, each hook another of them (``MIXED``)."""

from __future__ import annotations

import math
import os
import threading
from pathlib import Path
from typing import Any

RELEASE = threading.Event()  # set by the test when it ends: a hung implementation's thread then returns
HANG_SECONDS = 120


def deep_list(depth: int = 100_000) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


MIXED = {
    "pytest_tipc_add_dialects": "hostile",
    "pytest_tipc_modify_plan": "raise",
    "pytest_tipc_report_sections": "hang",
    "pytest_tipc_cause_rules": "junk",
    "pytest_tipc_stage_figures": "hostile",
    "pytest_tipc_history_store": "hang",
}


def misbehave(hook: str, listed: bool = False) -> Any:
    """What ``hook`` answers (``listed``: a hook that answers a list gets its hostile value inside one)."""
    fault = os.environ.get("TIPC_TEST_FAULT", "")
    fault = MIXED[hook] if fault == "mixed" else fault
    if fault == "raise":
        raise RuntimeError("the plugin is broken")
    if fault == "hang":
        RELEASE.wait(HANG_SECONDS)
        return None
    if fault == "junk":
        return 42
    if fault == "hostile":
        hostile = {"object": object(), "deep": deep_list(), "nan": math.nan, "inf": math.inf}
        return [hostile] if listed else hostile
    return None


def pytest_tipc_add_dialects() -> Any:
    return misbehave("pytest_tipc_add_dialects", listed=True)


def pytest_tipc_modify_plan(plan: Any, config: Any) -> Any:
    return misbehave("pytest_tipc_modify_plan")


def pytest_tipc_report_sections(results: Path) -> Any:
    return misbehave("pytest_tipc_report_sections", listed=True)


def pytest_tipc_cause_rules() -> Any:
    return misbehave("pytest_tipc_cause_rules", listed=True)


def pytest_tipc_stage_figures(stage: Any, log: Path, since: int, until: int | None) -> Any:
    return misbehave("pytest_tipc_stage_figures")


def pytest_tipc_history_store(results: Path, model: str, mode: str) -> Any:
    return misbehave("pytest_tipc_history_store")


HOOKS = tuple(name for name in dir() if name.startswith("pytest_tipc_"))
