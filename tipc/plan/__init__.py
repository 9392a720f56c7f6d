"""The typed plan (what would run, in what order, with which arguments) and what every dialect builds it from."""

from tipc.config.modes import MODES, Mode
from tipc.plan.model import Chain, InferCase, Plan, PlanOptions, Skipped, Stage, StageKind, Topology
from tipc.plan.serialize import plan_to_json, plan_to_text

__all__ = [
    "MODES",
    "Chain",
    "InferCase",
    "Mode",
    "Plan",
    "PlanOptions",
    "Skipped",
    "Stage",
    "StageKind",
    "Topology",
    "plan_to_json",
    "plan_to_text",
]
