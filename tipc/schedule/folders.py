"""Chains of different configs that would write the same folders: two configs with one ``model_name``
plan the same save dirs and logs, and side by side (``--jobs``, pytest-xdist) both trainings would
write one save dir and one ``train.log``, each record counting the other's steps. Run one after the
other they are what the bash did; run at once they are refused, naming both configs."""

from __future__ import annotations

import os
from collections.abc import Iterable

from tipc.errors import SettingsError
from tipc.plan.model import Stage

Owner = tuple[str, str]  # (config, chain id)


def shared_folders(stages: Iterable[tuple[str, Stage]]) -> list[tuple[Owner, Owner, str]]:
    """For each folder or log two configs' chains would both write: (first owner, second, path)."""
    owners: dict[str, Owner] = {}
    found: dict[tuple[str, str], tuple[Owner, Owner, str]] = {}
    for config, stage in stages:
        for path in _written(stage):
            first = owners.setdefault(path, (config, stage.chain))
            if first[0] != config:
                found.setdefault((first[0], config), (first, (config, stage.chain), path))
    return list(found.values())


def _written(stage: Stage) -> tuple[str, ...]:
    """The stage's log and, for a save dir's stages, the folder of what it writes (resolved)."""
    paths = [stage.log, *(os.path.dirname(o) or o for o in stage.outputs)]
    return tuple(os.path.normpath(os.path.join(stage.cwd, p)) for p in paths if p)


def refuse_shared_folders(stages: Iterable[tuple[str, Stage]], how: str) -> None:
    """``SettingsError`` naming the first two configs whose chains would write the same folder at once."""
    clashes = shared_folders(stages)
    if clashes:
        (a, chain_a), (b, chain_b), path = clashes[0]
        raise SettingsError(
            f"{how}: configs {a} (chain {chain_a}) and {b} (chain {chain_b}) both write {path}; side by side "
            "their trainings would share one save dir and one train.log. Run them one after the other "
            "(no --jobs, no -n), or give one its own --output-root"
        )
