"""``tipc plan``: print the stages a config would run on this node, in order, touching nothing on disk.

It takes the options that decide a plan, the same as ``pytest tipc`` (``--device``, ``--ips``,
``--host``… included), so what it prints is what a run with those options would start.
Several configs (``--config`` repeated, a directory, ``--tags``) print one line per config
instead: its model, mode, chains, stages and notes, or why it cannot be planned (exit 1 then).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tipc.plan import Plan
    from tipc.session.problems import ConfigProblem
    from tipc.session.settings import ConfigTarget


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tipc.session.options import add_plan_options

    add_plan_options(parser.add_argument)
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")


def run(args: argparse.Namespace) -> int:
    from tipc.cli.plan_summary import summary_line, summary_object
    from tipc.errors import TipcError
    from tipc.metrics.logtext import printable
    from tipc.plan import plan_to_json, plan_to_text
    from tipc.session.problems import ConfigProblem, selection_line
    from tipc.session.settings import resolve_targets

    if not args.tipc_config:
        print("tipc: error: --config: give a config, or a directory of configs", file=sys.stderr)
        return 2
    resolved = resolve_targets(lambda dest: getattr(args, dest))
    if len(resolved) == 1:
        outcome = _plan(resolved[0])
        if isinstance(outcome, ConfigProblem):
            if outcome.is_error:
                raise TipcError(outcome.reason)
            print(printable(outcome.line()))
        elif args.format == "json":
            print(json.dumps(plan_to_json(outcome), indent=1))
        else:
            print(printable(plan_to_text(outcome)), end="")  # config text: its escapes shown, not obeyed
        return 0
    entries = [(target.display, _plan(target)) for target in resolved]
    bad = [e for _, e in entries if isinstance(e, ConfigProblem)]
    if args.format == "json":
        print(json.dumps([summary_object(display, e) for display, e in entries], indent=1))
    else:
        for display, e in entries:
            print(summary_line(display, e))
        empty = [d for d, e in entries if not isinstance(e, ConfigProblem) and next(e.stages(), None) is None]
        print(selection_line(len(entries) - len(bad), bad, empty))
    return 1 if any(p.is_error for p in bad) else 0


def _plan(target: ConfigTarget | ConfigProblem) -> Plan | ConfigProblem:
    """Its plan, or its problem (a config that does not plan is one)."""
    from tipc.errors import TipcError
    from tipc.run.probe import cannot_run
    from tipc.session.problems import ConfigProblem, error

    if isinstance(target, ConfigProblem):
        return target
    try:
        return target.plan(cannot_run)
    except TipcError as exc:
        return error(target.path, target.display, target.options.mode, exc)
