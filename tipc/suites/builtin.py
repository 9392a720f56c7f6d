"""The dialect that lives in ``tipc.suites`` (the generic one: a checkout no dialect package recognises), registered
through the hook a plugin uses (``pytest_tipc_add_dialects``); tipc's own hook implementations. Each suite's dialect
is a package of ``tipc.dialects``, registered by its ``tipc`` entry point as any plugin is, so the core names none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tipc.metrics.logfile import extract_file
from tipc.plan.model import Plan, Stage
from tipc.suites import generic
from tipc.suites.dialect import Dialect
from tipc.suites.hookspecs import hookimpl


def pytest_tipc_add_dialects() -> list[Dialect[Any]]:
    return [generic.DIALECT]


@hookimpl(trylast=True)
def pytest_tipc_modify_plan(plan: Plan, config: object) -> Plan:
    """The plan as its dialect built it, when no plugin answers another: wrappers always receive a plan."""
    return plan


def pytest_tipc_stage_figures(stage: Stage, log: Path, since: int, until: int | None) -> dict[str, Any]:
    """tipc's own figures of a stage's log part (``tipc.metrics``: the benchmark block, ips, losses, accuracy)."""
    return dict(extract_file(stage.kind.value, log, since, until))
