"""Weights a PaddleDetection training loads that its command does not name: its yml's ``pretrain_weights``.

A config whose ``pretrain_weights`` line is ``null`` (or empty) passes no ``pretrain_weights=`` word, as the bash:
the trainer then loads the ``pretrain_weights`` of its yml (``-c``, ``_BASE_`` files below it, the later base
winning, the yml's own key over all), most often a URL it downloads. ``implied`` finds that value and the line that
wrote it, so that ``tipc.suites.downloads`` refuses a URL before a run, as for one the config names.
"""

from __future__ import annotations

from pathlib import Path

from tipc.config.bounds import config_text
from tipc.config.yamldoc import read_yaml
from tipc.errors import ConfigError
from tipc.plan.model import Plan, StageKind
from tipc.suites.downloads import Implied
from tipc.suites.prepare import yml_of

KEY = "pretrain_weights"
MAX_DEPTH = 8  # _BASE_ files below a yml, as tipc prepare reads them


def written(path: Path, key: str, depth: int = 0) -> tuple[Path, int, object] | None:
    """Where the yml at ``path`` (its ``_BASE_`` files merged below it) gets ``key``: (file, line, value)."""
    doc = read_yaml(path, tagged=True)
    data = doc.data if isinstance(doc.data, dict) else {}
    if key in data:
        return path, doc.line(key), data[key]
    bases = data.get("_BASE_") or ()
    for base in reversed([bases] if isinstance(bases, str) else list(bases)):
        if depth >= MAX_DEPTH:
            raise ConfigError(
                str(path), doc.line("_BASE_"), "_BASE_ files nest more than 8 deep: expected a chain that ends"
            )
        found = written(path.parent / str(base), key, depth + 1)
        if found is not None:
            return found
    return None


def _off(plan: Plan, trainer: str) -> str:
    """The ``--set`` that trains without the yml's weights: the trainer's line with ``pretrain_weights=null`` among
    its ``-o`` words ("" when the config cannot be read again)."""
    try:
        text = config_text(plan.config_path)
    except ConfigError:
        return ""
    for line in text.splitlines():
        key, _, script = line.partition(":")
        if key.strip() == trainer:
            words = script.strip() if script.rstrip().endswith(" -o") else f"{script.strip()} -o"
            return f"--set '{trainer}={words} {KEY}=null' trains without them"
    return ""


def implied(plan: Plan) -> tuple[Implied, ...]:
    """Each train stage's yml ``pretrain_weights`` where its command names none (a yml that cannot be read is
    left to the stage, which fails on it)."""
    found: dict[tuple[str, str], Implied] = {}
    for chain in plan.chains:
        for stage in chain.stages:
            yml = yml_of(stage)
            if stage.kind is not StageKind.TRAIN or yml is None or any(w.startswith(f"{KEY}=") for w in stage.argv):
                continue
            try:
                where = written(Path(stage.cwd) / yml, KEY)
            except ConfigError:
                continue
            if where is None or not isinstance(value := where[2], str):
                continue
            path, line = where[0], where[1]
            found.setdefault(
                (str(path), value), Implied(stage.id, str(path), line, KEY, value, _off(plan, chain.trainer))
            )
    return tuple(found.values())
