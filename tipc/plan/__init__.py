"""TipcConfig + PlanOptions → Plan: what would run, in what order, with which arguments."""

from tipc.plan.builder import build_plan
from tipc.plan.model import (MODES, Chain, InferCase, Plan, PlanOptions, Skipped, Stage, StageKind,
                             Topology)
from tipc.plan.modes import validate_mode
from tipc.plan.serialize import plan_to_json, plan_to_text

__all__ = [
    "MODES", "Chain", "InferCase", "Plan", "PlanOptions", "Skipped", "Stage", "StageKind", "Topology",
    "build_plan", "plan_to_json", "plan_to_text", "validate_mode",
]
