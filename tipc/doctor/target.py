"""The target repo and the run's shape: the scripts the plan runs exist, ``auto_log`` imports for
``--benchmark True``, and a multi-node config's node list and ports (the preflight's local half)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from tipc.cluster.node import NodeContext
from tipc.doctor.checks import Check, State
from tipc.doctor.facts import Environment
from tipc.doctor.preflight import local_checks
from tipc.plan.model import Plan
from tipc.schedule.demand import is_benchmark

AUTO_LOG_FIX = "pass --autolog-shim (tipc's drop-in auto_log), or install AutoLog in the stage interpreter"
SHOWN = 3  # missing scripts named in the detail; the rest counted


def scripts_of(plan: Plan) -> dict[Path, str]:
    """Every script a stage's argv runs (a relative ``*.py`` resolved against the stage's cwd),
    with the first stage that runs it."""
    found: dict[Path, str] = {}
    for stage in plan.stages():
        for token in stage.argv[1:]:
            if token.endswith(".py") and not token.startswith("-") and "=" not in token:
                found.setdefault(Path(stage.cwd) / token, stage.id)
    return found


def check_scripts(plan: Plan, exists: Callable[[Path], bool] = Path.is_file) -> Check:
    scripts = scripts_of(plan)
    missing = [path for path in scripts if not exists(path)]
    if not missing:
        return Check("target scripts", State.PASS, f"all {len(scripts)} scripts the plan runs exist in {plan.cwd}")
    named = ", ".join(os.path.relpath(p, plan.cwd) for p in missing[:SHOWN])
    more = f" and {len(missing) - SHOWN} more" if len(missing) > SHOWN else ""
    return Check(
        "target scripts",
        State.FAIL,
        f"{len(missing)} of {len(scripts)} scripts the plan runs are missing in {plan.cwd}: {named}{more}",
        "run in the target repo's checkout (the config's scripts are relative to it) or pass --repo DIR",
    )


DROPIN = "tipc.compat.auto_log"
IMPORTS_AUTO_LOG = re.compile(r"^\s*(import\s+auto_log\b|from\s+auto_log\s+import\b)", re.MULTILINE)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def needs_auto_log_by_name(plan: Plan, read: Callable[[Path], str] = _read) -> str:
    """The first ``--benchmark True`` stage's script that imports ``auto_log`` by that name and does
    not name tipc's drop-in (PaddleOCR's predictors), relative to the plan's folder; "" when none
    does (the reference target tries the drop-in first; a script may print its block itself)."""
    for stage in plan.stages():
        if not is_benchmark(stage):
            continue
        for token in stage.argv[1:]:
            if token.endswith(".py") and not token.startswith("-") and "=" not in token:
                path = Path(plan.cwd) / stage.cwd / token
                text = read(path)
                if IMPORTS_AUTO_LOG.search(text) and DROPIN not in text:
                    return os.path.relpath(path, plan.cwd)
                break
    return ""


def check_auto_log(plan: Plan, env: Environment, shim: bool, read: Callable[[Path], str] = _read) -> Check:
    if not any(is_benchmark(stage) for stage in plan.stages()):
        return Check("auto_log", State.NA, "no inference stage runs with --benchmark True")
    if env.problem:
        return Check("auto_log", State.NA, "the interpreter did not answer")
    via = " (tipc's drop-in, --autolog-shim)" if shim else ""
    if env.auto_log:
        return Check("auto_log", State.PASS, f"imports from {env.auto_log_where}{via}")
    detail = f"--benchmark True predictors import auto_log, which does not import: {env.auto_log_where}"
    by_name = needs_auto_log_by_name(plan, read)
    if by_name:  # whatever else imports: this script asks for auto_log itself
        return Check(
            "auto_log",
            State.FAIL,
            f"{detail}; {by_name} imports it by that name, so its stages will fail",
            AUTO_LOG_FIX,
        )
    if env.auto_log_dropin:  # a target that imports tipc's drop-in by its own name (the reference target) runs
        detail += f"; tipc.compat.auto_log does ({env.auto_log_dropin}): enough for a target importing it so"
    return Check("auto_log", State.WARN if env.auto_log_dropin else State.FAIL, detail, AUTO_LOG_FIX)


def check_nodes(node: NodeContext | None, environ: Mapping[str, str]) -> tuple[Check, ...]:
    """The multi-node preflight's checks this node can answer alone; the rendezvous is the run's."""
    if node is None or not node.multi_node:
        return (Check("multi-node preflight", State.NA, "a single-node run"),)
    return tuple(replace(c, name=f"multi-node {c.name}") for c in local_checks(node, environ))
