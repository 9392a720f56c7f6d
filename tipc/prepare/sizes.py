"""How many images ``tipc prepare`` makes per mode, and where that can be changed.

Precedence (first wins): ``--train-count``/``--eval-count``/``--infer-count``,
then the ``prepare:`` mapping of the config directory's ``target.yaml``, then
``DEFAULT_SIZES``. ``target.yaml`` form (every key optional)::

    prepare:
      lite_train_lite_infer:   {train: 64, eval: 32, infer: 8}
      whole_train_whole_infer: {train: 6000, eval: 500, infer: 32}

Keys under ``prepare:`` are mode names; under a mode, ``train``, ``eval`` and
``infer`` are image counts (non-negative integers).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from tipc.config.modes import MODES
from tipc.config.yamldoc import read_yaml
from tipc.errors import ConfigError

ROLES = ("train", "eval", "infer")


@dataclass(frozen=True, slots=True)
class Sizes:
    train: int
    eval: int
    infer: int


DEFAULT_SIZES: Mapping[str, Sizes] = {
    "lite_train_lite_infer": Sizes(train=64, eval=32, infer=8),
    "lite_train_whole_infer": Sizes(train=64, eval=32, infer=32),
    "whole_train_whole_infer": Sizes(train=4000, eval=400, infer=32),
    # Nothing trains in whole_infer: only the images the predictor reads.
    "whole_infer": Sizes(train=0, eval=0, infer=32),
    # The other suites' KL quantization and the paddle2onnx chain train nothing either.
    "klquant_whole_infer": Sizes(train=0, eval=0, infer=32),
    "paddle2onnx_infer": Sizes(train=0, eval=0, infer=32),
    # benchmark_train.sh's analysis needs more than 12 logged steps per process: 512 lines make 16 at
    # batch size 32 (and on two processes, which train twice the epochs on half the lines each).
    "benchmark_train": Sizes(train=512, eval=32, infer=0),
}


def declared_sizes(target_file: Path) -> dict[str, dict[str, int]]:
    """The ``prepare:`` mapping of a ``target.yaml`` ({} when the file or key is absent)."""
    if not target_file.is_file():
        return {}
    doc = read_yaml(target_file)
    prepare = doc.get("prepare")
    if prepare is None:
        return {}
    if not isinstance(prepare, dict):
        raise doc.error(f"prepare: expected a mapping of mode names, found {prepare!r}", "prepare")
    result: dict[str, dict[str, int]] = {}
    for mode, counts in prepare.items():
        if mode not in MODES:
            raise doc.error(f"prepare: unknown mode {mode!r}; expected one of {', '.join(MODES)}", "prepare", str(mode))
        if not isinstance(counts, dict):
            raise doc.error(f"prepare.{mode}: expected a mapping like {{train: 64}}, found {counts!r}", "prepare", mode)
        for role, count in counts.items():
            if role not in ROLES:
                raise doc.error(
                    f"prepare.{mode}: unknown key {role!r}; expected one of {', '.join(ROLES)}",
                    "prepare",
                    mode,
                    str(role),
                )
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise doc.error(
                    f"prepare.{mode}.{role}: expected a non-negative integer, found {count!r}", "prepare", mode, role
                )
        result[mode] = dict(counts)
    return result


def resolve_sizes(
    mode: str,
    declared: Mapping[str, Mapping[str, int]],
    overrides: Mapping[str, int | None],
) -> Sizes:
    """The sizes for ``mode``: overrides (None = not given) > declared > defaults."""
    if mode not in DEFAULT_SIZES:
        raise ConfigError("--mode", 0, f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    chosen = {**declared.get(mode, {}), **{k: v for k, v in overrides.items() if v is not None}}
    for role, count in chosen.items():
        if count < 0:
            raise ConfigError(f"--{role}-count", 0, f"expected a non-negative integer, found {count}")
    return replace(DEFAULT_SIZES[mode], **chosen)
