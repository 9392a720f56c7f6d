"""``tipc prepare``: make the data a config's stages read, offline and idempotently.

The paths are those of the commands the plan runs (the yml's, under each stage's ``-o``
overrides), planned as ``tipc plan`` would for the mode with default options.

Exit codes: 0 all data is in place; 1 the data was made but whole_infer still
lacks inference models that only a training run can produce; 2 bad input
(config, yml, foreign files in the way). Over several configs (``--config`` repeated,
a directory, ``--tags``), each is prepared in turn and the worst code is the exit status.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tipc.config.modes import MODES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tipc.session.options import add_selection_options

    add_selection_options(parser.add_argument)
    parser.add_argument("--mode", required=True, choices=MODES, help="the mode whose data to make")
    parser.add_argument(
        "--repo",
        type=Path,
        default=None,
        help="the target repo the config's paths are relative to "
        "(default: repo: of target.yaml beside the config, else the current directory)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic data (default 0)")
    parser.add_argument(
        "--force",
        action="store_true",
        help="overwrite files at the paths tipc writes even when tipc did not make them (nothing else is ever deleted)",
    )
    for role in ("train", "eval", "infer"):
        parser.add_argument(
            f"--{role}-count",
            type=int,
            default=None,
            metavar="N",
            help=f"number of {role} images (default: per mode, or target.yaml's prepare:)",
        )


def run(args: argparse.Namespace) -> int:
    """Each selected config in turn; with several, one that fails is named and the next goes on."""
    from tipc.errors import TipcError
    from tipc.session.selection import select_configs
    from tipc.session.settings import display_name

    if not args.tipc_config:
        print("tipc prepare: error: --config is required (a config, or a directory of configs)", file=sys.stderr)
        return 2
    selected = select_configs(args.tipc_config, args.tipc_tags, Path.cwd(), args.tipc_suite)
    if len(selected) == 1:
        return _prepare(selected[0].path, args)
    codes = []
    for config in selected:
        print(f"prepare: {display_name(config.path, Path.cwd(), config.within)}")
        try:
            codes.append(_prepare(config.path, args))
        except TipcError as exc:
            print(f"tipc: error: {exc}", file=sys.stderr)
            codes.append(2)
    return max(codes)


def _prepare(config_path: Path, args: argparse.Namespace) -> int:
    """The config's dialect's data maker (``Dialect.prepare``), or a clear error when it offers none."""
    from tipc.config.locate import TARGET_FILE, declared_repo
    from tipc.config.modes import parse_mode
    from tipc.errors import ConfigError
    from tipc.plan.model import PlanOptions
    from tipc.prepare.sizes import declared_sizes, resolve_sizes
    from tipc.suites import front as suites
    from tipc.suites import registry
    from tipc.suites.dialect import Prepared

    repo = (args.repo or declared_repo(config_path) or Path.cwd()).absolute()
    loaded = suites.load(config_path, args.tipc_suite)
    dialect = loaded.dialect
    if dialect.prepare is None:
        offered = ", ".join(d.name for d in registry.dialects() if d.prepare is not None)
        raise ConfigError(loaded.path, 0, f"prepare: no data family for {dialect.name} configs yet: expected a config "
                          f"of a dialect that offers one ({offered})")  # fmt: skip
    overrides = {"train": args.train_count, "eval": args.eval_count, "infer": args.infer_count}
    sizes = resolve_sizes(args.mode, declared_sizes(config_path.parent / TARGET_FILE), overrides)
    # Data paths do not depend on the interpreter, the device or the node: the defaults do.
    plan = suites.plan(loaded, PlanOptions(mode=parse_mode(args.mode, "--mode"), repo=str(repo)))
    done = dialect.prepare(plan, repo, sizes, args.seed, args.force)
    prepared = done if isinstance(done, Prepared) else Prepared(tuple(done))
    for line in prepared.made:
        print(f"prepare: {line}")
    for line in prepared.missing:
        print(f"tipc: prepare: {line}", file=sys.stderr)
    return 1 if prepared.missing else 0
