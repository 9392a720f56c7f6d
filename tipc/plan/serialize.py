"""The plan as JSON (``tipc plan --format json``, golden snapshots) and as readable text."""

from __future__ import annotations

import shlex
from dataclasses import asdict
from typing import Any

from tipc.config.modes import Mode
from tipc.plan.model import Plan, Stage, StageKind


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
        # Another script's status-line file and line ending (paddle2onnx plans), said only when not the default.
        **(
            {"status_log": plan.status_log, "status_tail": plan.status_tail}
            if plan.status_log != _DEFAULT.status_log
            else {}
        ),
    }


_DEFAULT = Plan("", "", Mode.WHOLE_INFER, "", "", "", ())


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
        **({} if stage.status_line else {"status_line": False}),  # paddle2onnx's Paddle Inference run only
        "rank0_only": stage.rank0_only,
        "infer": asdict(stage.infer) if stage.infer else None,
        "copy_train_log": list(stage.copy_train_log) if stage.copy_train_log else None,
        "legacy_command": stage.legacy_command,
        "legacy_log": stage.legacy_log,
        **({"speed": asdict(stage.speed)} if stage.speed else {}),  # benchmark_train's trains only
        **({"golden_dir": stage.golden_dir} if stage.golden_dir else {}),  # golden checks only
        **({"launch_log": stage.launch_log} if stage.launch_log else {}),  # launch stages only
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
            _check_or_argv(stage),
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


def _check_or_argv(stage: Stage) -> str:
    tolerance = f", tolerance from goldens in {stage.golden_dir}" if stage.golden_dir else ""
    if stage.kind is StageKind.AGREE:
        return f"  check: ONNX Runtime's predictions against Paddle Inference's{tolerance} (in the harness, no process)"
    if stage.kind is StageKind.GOLDEN:
        return f"  check: goldens in {stage.golden_dir} (in the harness, no process)"
    return f"  argv: {shlex.join(stage.argv)}"


def _env_text(stage: Stage) -> str:
    parts = [f"unset {k}" if v is None else f"{k}={v}" for k, v in stage.env.items()]
    return ", ".join(parts) or "(inherited)"
