"""The plan as JSON (``tipc plan --format json``, golden snapshots) and as readable text."""

from __future__ import annotations

import shlex
from dataclasses import asdict
from typing import Any

from tipc.plan.model import Plan, Stage


def plan_to_json(plan: Plan) -> dict[str, Any]:
    return {
        "model": plan.model,
        "mode": plan.mode,
        "config": plan.config_path,
        "config_sha256": plan.config_sha256,
        "python": plan.python,
        "cwd": plan.cwd,
        "output_dir": plan.output_dir,
        "stages": [_stage_json(s) for s in plan.stages()],
        "skipped": [{"id": s.id, "reason": s.reason} for s in plan.skipped],
        "notes": list(plan.notes),
    }


def _stage_json(stage: Stage) -> dict[str, Any]:
    return {
        "id": stage.id,
        "kind": stage.kind.value,
        "chain": stage.chain,
        "name": stage.name,
        "argv": list(stage.argv),
        "env": dict(stage.env),
        "cwd": stage.cwd,
        "log": stage.log,
        "requires": list(stage.requires),
        "outputs": list(stage.outputs),
        **({"inputs": list(stage.inputs)} if stage.inputs else {}),  # paddle2onnx conversions only
        "rank0_only": stage.rank0_only,
        "infer": asdict(stage.infer) if stage.infer else None,
        "copy_train_log": list(stage.copy_train_log) if stage.copy_train_log else None,
        "legacy_command": stage.legacy_command,
        "legacy_log": stage.legacy_log,
        **({"speed": asdict(stage.speed)} if stage.speed else {}),  # benchmark_train's trains only
        **({"golden_dir": stage.golden_dir} if stage.golden_dir else {}),  # golden checks only
    }


def plan_to_text(plan: Plan) -> str:
    """One block per stage in execution order, then what was skipped and why, then the notes."""
    stages = list(plan.stages())
    lines = [
        f"model {plan.model}, mode {plan.mode}: {len(stages)} stages, {len(plan.skipped)} skipped",
        f"config: {plan.config_path}",
        f"cwd: {plan.cwd}",
        f"output: {plan.output_dir}",
        "",
    ]
    for stage in stages:
        lines += [
            stage.id + ("  (rank 0 only)" if stage.rank0_only else ""),
            f"  check: goldens in {stage.golden_dir} (in the harness, no process)"
            if stage.golden_dir
            else f"  argv: {shlex.join(stage.argv)}",
            f"  env: {_env_text(stage)}",
            f"  log: {stage.log}",
            f"  requires: {', '.join(stage.requires) or '-'}",
            "",
        ]
    if plan.skipped:
        lines.append("skipped:")
        lines += [f"  {s.id}: {s.reason}" for s in plan.skipped]
        lines.append("")
    if plan.notes:
        lines.append("notes:")
        lines += [f"  - {n}" for n in plan.notes]
    return "\n".join(lines).rstrip("\n") + "\n"


def _env_text(stage: Stage) -> str:
    parts = [f"unset {k}" if v is None else f"{k}={v}" for k, v in stage.env.items()]
    return ", ".join(parts) or "(inherited)"
