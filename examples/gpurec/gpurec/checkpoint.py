"""``<prefix>.pdparams`` / ``.pdopt`` / ``.states``: PaddleOCR's checkpoint names, holding torch state dicts."""

from __future__ import annotations

import json
from pathlib import Path

import torch


class CheckpointError(ValueError):
    """Weights that are missing or do not fit the model the yml builds."""


def save(prefix: Path, model: torch.nn.Module, optimizer: torch.optim.Optimizer, states: dict) -> None:
    prefix.parent.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), f"{prefix}.pdparams")
    torch.save(optimizer.state_dict(), f"{prefix}.pdopt")
    Path(f"{prefix}.states").write_text(json.dumps(states), encoding="utf-8")


def params_file(prefix: str) -> Path:
    """``prefix`` as PaddleOCR takes it: ``.pdparams`` may be written or left out."""
    base = prefix.removesuffix(".pdparams")
    path = Path(f"{base}.pdparams")
    if not path.is_file():
        raise CheckpointError(f"weights not found: {path} (expected <prefix>.pdparams)")
    return path


def load_params(model: torch.nn.Module, prefix: str) -> None:
    """Load weights by name; a missing or mis-shaped parameter is an error, not a warning."""
    path = params_file(prefix)
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        model.load_state_dict(state)
    except (RuntimeError, OSError, ValueError) as exc:  # torch says which keys or shapes do not fit
        raise CheckpointError(f"{path}: does not fit the model: {str(exc)[:300]}") from None


def load_resume(model: torch.nn.Module, optimizer: torch.optim.Optimizer, prefix: str) -> dict:
    """Weights, optimizer and states of ``prefix``; returns the states (epoch, global_step)."""
    load_params(model, prefix)
    base = str(params_file(prefix)).removesuffix(".pdparams")
    if Path(f"{base}.pdopt").is_file():
        optimizer.load_state_dict(torch.load(f"{base}.pdopt", map_location="cpu", weights_only=True))
    states = Path(f"{base}.states")
    return json.loads(states.read_text(encoding="utf-8")) if states.is_file() else {}
