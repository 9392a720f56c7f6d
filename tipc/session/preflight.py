"""The multi-node preflight as both fronts run it: once per config, before its first stage.

A failed preflight ends the run before any training: every stage of the plan
is recorded as BLOCKED with the failed checks (so ``results.jsonl``,
``run.json`` and ``results_python.log`` still tell the story, and ``tipc
merge`` still joins the nodes), and the front exits non-zero with the summary.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeGuard

from tipc.cluster.node import NodeContext
from tipc.doctor.preflight import PREFLIGHT, PreflightReport, run_preflight
from tipc.run.plan_run import PlanRun

FAILED = "tipc preflight failed; nothing was run:"


def needs_preflight(node: NodeContext | None) -> TypeGuard[NodeContext]:
    return node is not None and node.multi_node and node.preflight


def preflight(session: PlanRun, node: NodeContext | None, emit: Callable[[str], None]) -> PreflightReport | None:
    """Run the checks for a begun session; None when this run has none (one node, --no-preflight,
    dry run). Each check's line goes to ``emit`` as it is decided and into ``run.json``'s notes."""
    if not needs_preflight(node) or session.settings.dry_run:
        return None
    facts = session.facts
    report = run_preflight(
        node,
        config_sha256=session.plan.config_sha256,
        paddle_version=facts.paddle_version,
        mode=session.plan.mode,
        emit=emit,
    )
    session.notes.extend(check.line(PREFLIGHT) for check in report.checks)
    if not report.ok:
        session.block_all(f"blocked: {FAILED} {report.summary()}")
    return report


def failure_message(report: PreflightReport) -> str:
    """The failed checks with their fixes: what the front ends with (every check's line,
    passed or not, was printed as it was decided)."""
    return f"{FAILED}\n{report.summary()}"
