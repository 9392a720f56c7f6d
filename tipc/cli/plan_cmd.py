"""``tipc plan``: print the stages a config would run, in order, touching nothing on disk."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tipc.plan.model import MODES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True,
                        help="train_infer_python.txt path, or a path relative to test_configs/")
    # Checked by validate_mode so that the error names the config, like every other bad input.
    parser.add_argument("--mode", required=True, metavar="MODE", help=f"one of {', '.join(MODES)}")
    parser.add_argument("--repo", type=Path, default=None,
                        help="the target repo the stages run in (default: repo: of target.yaml beside "
                             "the config, else the current directory)")
    parser.add_argument("--python", default=None,
                        help="interpreter for every stage (default: the config's if on PATH, else this one)")
    parser.add_argument("--device", choices=("cpu", "gpu"), default="gpu",
                        help="cpu: run GPU topologies as CPU processes and skip GPU inference (default gpu)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")


def run(args: argparse.Namespace) -> int:
    from tipc.config import load_config
    from tipc.config.locate import TIPC_CHECKOUT, declared_repo, resolve_config
    from tipc.plan import PlanOptions, build_plan, plan_to_json, plan_to_text, validate_mode

    config_path = resolve_config(args.config, Path.cwd(), TIPC_CHECKOUT)
    validate_mode(args.mode, str(config_path))
    repo = (args.repo or declared_repo(config_path) or Path.cwd()).absolute()
    config = load_config(config_path)
    options = PlanOptions(mode=args.mode, repo=str(repo), python=args.python, device=args.device)
    plan = build_plan(config, options)
    if args.format == "json":
        print(json.dumps(plan_to_json(plan), indent=1))
    else:
        print(plan_to_text(plan), end="")
    return 0
