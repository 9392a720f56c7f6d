"""Training ymls and ``-c <yml> -o Key.path=value`` overrides, PaddleOCR style."""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path
from typing import Any

import yaml


class ConfigError(ValueError):
    """A yml or ``-o`` override that cannot be applied; the message says which."""


def parse_override(text: str) -> tuple[tuple[str, ...], Any]:
    """``Global.epoch_num=3`` → (("Global", "epoch_num"), 3); the value is a YAML scalar."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"-o {text!r}: expected Key.path=value")
    try:
        value = yaml.safe_load(raw) if raw.strip() else None
    except yaml.YAMLError as exc:
        raise ConfigError(f"-o {text!r}: value is not a YAML scalar ({exc})") from None
    return tuple(key.strip().split(".")), value


def apply_override(config: dict, path: tuple[str, ...], value: Any) -> None:
    node = config
    for depth, part in enumerate(path[:-1]):
        child = node.get(part)
        if child is None:
            child = node[part] = {}
        if not isinstance(child, dict):
            where = ".".join(path[: depth + 1])
            raise ConfigError(f"-o {'.'.join(path)}: {where} is a {type(child).__name__}, not a section")
        node = child
    node[path[-1]] = value


def load_config(yml: str | Path, overrides: tuple[str, ...] = ()) -> dict:
    path = Path(yml)
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    with path.open(encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
    if not isinstance(config, dict) or "Global" not in config:
        raise ConfigError(f"{path}: expected a mapping with a Global section")
    config = copy.deepcopy(config)
    for text in overrides:
        apply_override(config, *parse_override(text))
    return config


def argument_parser(description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("-c", "--config", required=True, help="training yml")
    parser.add_argument("-o", "--opt", nargs="*", default=[], help="Key.path=value overrides")
    parser.add_argument(
        "-p", "--profiler_options", default=None, help='profile the training: "batch_range=[10,20];timer_only=False"'
    )
    return parser


def config_from_argv(tool: str, description: str, argv: list[str] | None = None) -> dict:
    """The ``-c`` yml with its ``-o`` overrides; a bad one exits 1 with ``<tool>: <what is wrong>``."""
    args = argument_parser(description).parse_args(argv)
    try:
        config = load_config(args.config, tuple(args.opt))
    except ConfigError as exc:
        sys.exit(f"{tool}: {exc}")
    config["profiler_options"] = args.profiler_options  # where PaddleOCR's program.preprocess puts it
    return config


def dump_config(config: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")


def log_config(config: dict, logger, indent: int = 0) -> None:
    """Print the merged config as PaddleOCR does, one ``key : value`` per line."""
    for key in sorted(config):
        value = config[key]
        if isinstance(value, dict):
            logger.info(f"{' ' * indent}{key} : ")
            log_config(value, logger, indent + 4)
        else:
            logger.info(f"{' ' * indent}{key} : {value}")


def image_shape(config: dict, section: str = "Train") -> tuple[int, int, int]:
    """``RecResizeImg.image_shape`` from a section's transforms (C, H, W)."""
    for transform in config[section]["dataset"].get("transforms", ()):
        if isinstance(transform, dict) and "RecResizeImg" in transform:
            c, h, w = transform["RecResizeImg"]["image_shape"]
            return int(c), int(h), int(w)
    raise ConfigError(f"{section}.dataset.transforms has no RecResizeImg.image_shape")
