"""``--doctor``: ``tipc doctor``'s checks as the first thing a run does, per config.

On by default when a config is a fleet config (its file name says ``fleet``, or its node list
names several nodes): a fleet nightly is where a wrong driver costs hours. A failed check blocks
every stage of its config with the check's reason (recorded, so ``results.jsonl`` and the report
tell it) and the front shows the doctor's verdict as the first item; other configs run.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tipc.doctor.checks import Report
from tipc.doctor.examine import examine_config
from tipc.doctor.probes import Probes, SystemProbes
from tipc.doctor.render import report_lines
from tipc.plan.model import Plan
from tipc.session.settings import ConfigTarget, Settings

if TYPE_CHECKING:
    from tipc.run.plan_run import PlanRun


def examine_target(plan: Plan, target: ConfigTarget, settings: Settings, probes: Probes) -> Report:
    return examine_config(
        plan,
        probes,
        display=target.display,
        node=target.node,
        pythonpath=settings.run.pythonpath,
        environ=os.environ,
    )


def run_doctor(
    settings: Settings, runs: list[tuple[ConfigTarget, PlanRun]], emit: Callable[[str], None], probes: Probes | None
) -> dict[Path, Report]:
    """Examine every begun config; block the stages of each that failed a check."""
    probes = probes or SystemProbes()
    reports = {}
    for target, run in runs:
        report = examine_target(run.plan, target, settings, probes)
        for line in report_lines(report):
            emit(line)
        run.notes.extend(f"doctor: {c.state.value} {c.name}: {c.detail}" for c in report.checks)
        if not report.ok:
            run.block_all(f"blocked: {report.failures()[0].reason()}")
        reports[target.path] = report
    return reports
