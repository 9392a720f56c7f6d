"""``tipc plan``: print the stages a config would run on this node, in order, touching nothing on disk.

It takes the options that decide a plan, the same as ``pytest tipc`` (``--device``, ``--ips``,
``--host``… included), so what it prints is what a run with those options would start.
"""

from __future__ import annotations

import argparse
import json
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tipc.session.options import add_plan_options

    add_plan_options(parser.add_argument)
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")


def run(args: argparse.Namespace) -> int:
    from tipc.config import load_any_config
    from tipc.plan import build_plan, plan_to_json, plan_to_text
    from tipc.run.probe import cannot_run
    from tipc.session.settings import resolve_targets

    if len(args.tipc_config) != 1:
        print("tipc: error: --config: tipc plan takes exactly one config", file=sys.stderr)
        return 2
    (target,) = resolve_targets(lambda dest: getattr(args, dest))
    plan = build_plan(load_any_config(str(target.path)), target.options, cannot_run)
    if args.format == "json":
        print(json.dumps(plan_to_json(plan), indent=1))
    else:
        print(plan_to_text(plan), end="")
    return 0
