"""``<prefix>.pdparams`` / ``.pdopt`` / ``.states``: PaddleOCR's checkpoint triple."""

from __future__ import annotations

import pickle
from pathlib import Path

import paddle


class CheckpointError(ValueError):
    """Weights that are missing or do not fit the model the yml builds."""


def save(prefix: Path, model, optimizer, states: dict) -> None:
    prefix.parent.mkdir(parents=True, exist_ok=True)
    paddle.save(model.state_dict(), f"{prefix}.pdparams")
    paddle.save(optimizer.state_dict(), f"{prefix}.pdopt")
    with open(f"{prefix}.states", "wb") as handle:
        pickle.dump(states, handle)


def _params_file(prefix: str) -> Path:
    prefix = prefix[: -len(".pdparams")] if prefix.endswith(".pdparams") else prefix
    path = Path(f"{prefix}.pdparams")
    if not path.is_file():
        raise CheckpointError(f"weights not found: {path} (expected <prefix>.pdparams)")
    return path


def load_params(model, prefix: str) -> None:
    """Load weights by name; a missing or mis-shaped parameter is an error, not a warning."""
    path = _params_file(prefix)
    state = paddle.load(str(path))
    own = model.state_dict()
    missing = sorted(set(own) - set(state))
    bad = sorted(k for k in own if k in state and list(state[k].shape) != list(own[k].shape))
    if missing or bad:
        raise CheckpointError(f"{path}: does not fit the model (missing {missing[:5]}, shape mismatch {bad[:5]})")
    model.set_state_dict(state)


def load_resume(model, optimizer, prefix: str) -> dict:
    """Weights, optimizer and states of ``prefix``; returns the states (epoch, global_step)."""
    load_params(model, prefix)
    base = str(_params_file(prefix))[: -len(".pdparams")]
    if Path(f"{base}.pdopt").is_file():
        optimizer.set_state_dict(paddle.load(f"{base}.pdopt"))
    states_file = Path(f"{base}.states")
    if states_file.is_file():
        with states_file.open("rb") as handle:
            return pickle.load(handle)
    return {}
