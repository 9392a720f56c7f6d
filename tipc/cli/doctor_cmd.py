"""``tipc doctor``: the environment checks for the configs a run would run, before it runs.

Takes ``tipc run``'s options (the stage interpreter, ``--device``, ``--repo``, ``--autolog-shim``,
the node list all change what is checked) and prints each config's checks, or with ``--json`` one
document (``tipc.doctor.render``). Exit status: 0 when no check failed and every config could be
planned, 1 otherwise, 2 for bad options.
"""

from __future__ import annotations

import argparse
import json
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tipc.session.options import add_options

    add_options(parser.add_argument)
    parser.add_argument(
        "--json", dest="doctor_json", action="store_true", help="print one JSON document instead of text"
    )


def run(args: argparse.Namespace) -> int:
    from tipc.doctor.checks import Report
    from tipc.doctor.probes import SystemProbes
    from tipc.doctor.render import document, report_lines, tally
    from tipc.errors import ConfigError
    from tipc.run.probe import cannot_run
    from tipc.session.doctor import examine_target
    from tipc.session.settings import resolve_settings

    settings = resolve_settings(lambda dest: getattr(args, dest))
    if settings is None:
        print("tipc doctor: error: --config is required (a path, or relative to test_configs/)", file=sys.stderr)
        return 2
    problems = [{"config": p.display, "kind": p.kind.value, "reason": p.reason} for p in settings.problems]
    reports: list[Report] = []
    probes = SystemProbes()
    for target in settings.targets:
        try:
            plan = target.plan(cannot_run)
        except ConfigError as exc:
            problems.append({"config": target.display, "kind": "error", "reason": str(exc)})
            continue
        reports.append(examine_target(plan, target, settings, probes))
    doc = document(reports, problems)
    if args.doctor_json:
        print(json.dumps(doc, indent=2))
    else:
        for report in reports:
            print("\n".join(report_lines(report)))
        for problem in problems:
            print(f"tipc doctor: {problem['config']}: {problem['kind']}: {problem['reason']}")
        print(tally(reports))
    return 0 if doc["ok"] else 1
