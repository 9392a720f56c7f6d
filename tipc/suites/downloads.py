"""Weights a stage would download: refused before a run starts, naming the config line and the way out.

A config may name its weights by URL (``pretrain_weights:https://…``, ``-o Global.pretrained_model:https://…``,
PaddleDetection's ``weights:`` in whole_infer): the suite's trainer or exporter then downloads them when the stage
starts, which an offline machine cannot, after the stages before it ran. A run is refused before it starts instead:
the error names the line and the ``--set`` that runs without those weights, or with local ones. ``tipc plan`` still
plans such configs, as the bash runs them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tipc.config.bounds import config_text, excerpt
from tipc.errors import ConfigError
from tipc.plan.model import Plan
from tipc.suites.sets import Sets

URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Implied:
    """Weights a stage loads that its arguments do not name (a dialect's ``implied_weights``): where they are
    written, and the ``--set`` that runs without them ("" for none)."""

    stage: str  # the stage id
    path: str  # the file that names them (a yml the stage reads) and its line
    line: int
    key: str
    value: str
    off: str = ""


def download_refusal(plan: Plan, sets: Sets = ()) -> ConfigError | None:
    """The error for the first config line (or ``--set``) whose URL a stage's arguments carry, else for the first
    URL a stage loads without naming it (its dialect's ``implied_weights``); None: no stage downloads."""
    from tipc.suites.front import dialect_for  # the dialects: plugins' included

    named = _named_refusal(plan, sets)
    if named is not None:
        return named
    implied = dialect_for(Path(plan.config_path))[0].implied_weights
    for weights in implied(plan) if implied is not None else ():
        if URL.match(weights.value):
            way_out = f"--set {weights.key}=<a local path> loads weights downloaded before"
            return ConfigError(
                weights.path,
                weights.line,
                f"{weights.key}: '{excerpt(weights.value)}' is a URL: {weights.stage} would download it when it "
                f"starts (the config passes no {weights.key}, so the stage loads this one), which an offline run "
                f"cannot: expected local weights or none ({'; '.join(filter(None, (way_out, weights.off)))})",
            )
    return None


def _named_refusal(plan: Plan, sets: Sets) -> ConfigError | None:
    urls = {
        value: stage.id
        for stage in plan.stages()
        for word in stage.argv[1:]
        if URL.match(value := word.partition("=")[2] or word)
    }
    if not urls:
        return None
    for key, value in sets:
        if value in urls:
            return ConfigError(plan.config_path, 0, f"--set {_message(key, value, urls[value])}")
    text = config_text(plan.config_path)
    for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        key, sep, value = line.partition(":")
        if sep and value.strip() in urls:
            name = key.split()[-1] if key.split() else key
            return ConfigError(plan.config_path, number, _message(name, value.strip(), urls[value.strip()]))
    url, stage = next(iter(urls.items()))
    return ConfigError(plan.config_path, 0, _message("", url, stage))


def _message(key: str, url: str, stage: str) -> str:
    way_out = f"--set {key}=null runs without them, --set {key}=<a local path> with weights downloaded before"
    return (
        f"{f'{key}: ' if key else ''}'{excerpt(url)}' is a URL: {stage} would download it when it starts, which an "
        f"offline run cannot: expected local weights or none ({way_out if key else 'give a local path'})"
    )
