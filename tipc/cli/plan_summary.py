"""``tipc plan`` over several configs: one line (or one JSON object) per config."""

from __future__ import annotations

from typing import Any

from tipc.metrics.logtext import printable
from tipc.plan import Plan
from tipc.session.problems import ConfigProblem

Entry = tuple[str, Plan | ConfigProblem]  # (config as node ids spell it, its plan or its problem)


def summary_fields(plan: Plan) -> dict[str, Any]:
    return {
        "model": plan.model,
        "mode": str(plan.mode),
        "chains": len(plan.chains),
        "stages": sum(len(c.stages) for c in plan.chains),
        "notes": len(plan.notes),
    }


def summary_line(display: str, outcome: Plan | ConfigProblem) -> str:
    """One line for a terminal: a model_name's escape sequences and bells are shown, not obeyed."""
    if isinstance(outcome, ConfigProblem):
        return printable(f"{display}: {'error' if outcome.is_error else 'not applicable'}: {outcome.reason}")
    f = summary_fields(outcome)
    counted = ", ".join(f"{f[key]} {key[:-1] if f[key] == 1 else key}" for key in ("chains", "stages", "notes"))
    return printable(f"{display}: {f['model']} {f['mode']}: {counted}")


def summary_object(display: str, outcome: Plan | ConfigProblem) -> dict[str, Any]:
    if isinstance(outcome, ConfigProblem):
        key = "error" if outcome.is_error else "not_applicable"
        return {"config": display, "mode": outcome.mode, key: outcome.reason}
    return {"config": display, **summary_fields(outcome)}
