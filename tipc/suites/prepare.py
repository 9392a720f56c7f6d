"""What the dialects' ``tipc prepare`` share: a stage's yml, read with its base files merged under it, its class
count read with a clear error, the colours and folder of the synthetic sets, and a data maker imported only when
``tipc prepare`` runs. Each suite's own data maker lives in its dialect package; what exists is kept unless
``force`` (it may be the real data set)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tipc.config.yamldoc import read_yaml
from tipc.errors import ConfigError
from tipc.plan.model import Plan, Stage

if TYPE_CHECKING:
    from tipc.prepare.sizes import Sizes

SUBDIR = "tipc_synthetic"
MAX_CLASSES = 100_000  # a model's class count tipc makes data for (a json of that many categories is small)
MAX_BASE_DEPTH = 8  # base files below a yml


def class_count(value: object, yml: Path, key: str, default: int) -> int:
    """A yml's class count (``default`` when it has none), or a ``ConfigError`` saying what was expected."""
    if value is None:
        return default
    if isinstance(value, int | str) and not isinstance(value, bool) and str(value).strip().isdigit():
        count = int(str(value).strip())
        if 1 <= count <= MAX_CLASSES:
            return count
    raise ConfigError(str(yml), 0, f"{key}: {str(value)[:40]!r}: expected a whole number from 1 to {MAX_CLASSES}")


def yml_of(stage: Stage) -> str | None:
    argv = stage.argv
    return next((argv[i + 1] for i in range(len(argv) - 1) if argv[i] in ("-c", "--config")), None)


def colour(index: int) -> tuple[int, int, int]:
    """The colour of class ``index``: each class its own, so a model can learn them."""
    return (index * 70) % 256, (index * 130 + 60) % 256, (index * 190 + 120) % 256


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and value.get("_inherited_", True):
            out[key] = merge(out[key], value)
        else:
            out[key] = {k: v for k, v in value.items() if k != "_inherited_"} if isinstance(value, dict) else value
    return out


def merged_yml(path: Path, bases: str, *, tagged: bool = False, depth: int = 0) -> dict[str, Any]:
    """The yml at ``path`` with the files its ``bases`` key names merged under it, each later one over the earlier
    and the yml over all (``_inherited_: False`` replaces a mapping); ``tagged``: tags read as plain mappings."""
    doc = read_yaml(path, tagged=tagged).data
    data: dict[str, Any] = dict(doc) if isinstance(doc, dict) else {}
    named = data.pop(bases, ()) or ()
    merged: dict[str, Any] = {}
    for base in [named] if isinstance(named, str) else list(named):
        if depth > MAX_BASE_DEPTH:
            raise ConfigError(
                str(path), 0, f"{bases} files nest more than {MAX_BASE_DEPTH} deep: expected a chain that ends"
            )
        merged = merge(merged, merged_yml(path.parent / str(base), bases, tagged=tagged, depth=depth + 1))
    return merge(merged, data)


Family = Callable[[Plan, Path, "Sizes", int, bool], list[str]]


def deferred(module: str, family: str) -> Family:
    """A dialect's ``prepare``: ``family`` of ``module``, imported when ``tipc prepare`` runs (a run's start needs
    none of the drawing code)."""

    def run(plan: Plan, repo: Path, sizes: Sizes, seed: int, force: bool) -> list[str]:
        made: list[str] = getattr(importlib.import_module(module), family)(plan, repo, sizes, seed, force)
        return made

    return run
