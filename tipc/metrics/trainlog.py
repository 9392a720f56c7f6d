"""Training speed and loss from PaddleOCR-style ``epoch: [i/n], global_step: …`` lines."""

from __future__ import annotations

import re

from .logtext import messages

_STEP_LINE = re.compile(r"\bepoch: \[\d+/\d+\], global_step: \d+")
_NUMBER = re.compile(r"(?<![\w.])([A-Za-z_][\w]*): (-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|nan|inf)")


def step_values(text: str) -> list[dict[str, float]]:
    """``{name: value}`` of every logged training step, in log order."""
    return [
        {name: float(value) for name, value in _NUMBER.findall(message)}
        for _, message in messages(text)
        if _STEP_LINE.search(message)
    ]


def train_metrics(text: str) -> dict:
    """``ips`` (mean over logged steps after the first, which carries start-up costs;
    the only step's value when one was logged), ``loss`` (last), ``steps`` (count)."""
    steps = step_values(text)
    speeds = [s["ips"] for s in steps if "ips" in s]
    losses = [s["loss"] for s in steps if "loss" in s]
    timed = speeds[1:] or speeds
    return {
        "ips": sum(timed) / len(timed) if timed else None,
        "loss": losses[-1] if losses else None,
        "steps": len(steps),
    }
