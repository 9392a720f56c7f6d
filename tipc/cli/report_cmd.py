"""``tipc report RESULTS_DIR… [--out reports] [--compare DIR] [--fail-on regression]``: render the HTML
report, print its path. ``tipc report --night DIR…`` writes the night's index instead: one page over every
``<model>/<mode>`` results folder given, or found under an output root given.

Exit status: the page's badge (``tipc.results.outcome``): 0 passed, 1 failed, incomplete, or regressed
(a figure regressed and ``--fail-on regression``, ``TIPC_FAIL_ON`` or ``[tool.tipc]`` asks for it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tipc.session.options import add_judging_options

    parser.add_argument(
        "results_dirs",
        nargs="+",
        type=Path,
        metavar="RESULTS_DIR",
        help="a results directory (run.json + results.jsonl); one per node on multi-node runs",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("reports"),
        help="reports root; the page lands in <out>/<model>/<mode>/<run id>/ (default: reports)",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        default=None,
        metavar="DIR",
        help="a previous report or results directory to compare with "
        "(default: the newest earlier report of the same model and mode)",
    )
    parser.add_argument(
        "--no-history", dest="history", action="store_false", help="do not compare with or link to earlier reports"
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=10.0,
        metavar="PERCENT",
        help="report benchmark figures that moved by more than this (default: 10)",
    )
    parser.add_argument(
        "--night",
        action="store_true",
        help="write the night's index of the results folders (or output roots holding <model>/<mode> folders) "
        "instead, to <out>/night/<night>/index.html",
    )
    parser.add_argument(
        "--night-name",
        default="",
        metavar="NAME",
        help="the night's name (default: the run group its folders share, else the newest run id)",
    )
    add_judging_options(parser.add_argument)


def run(args: argparse.Namespace) -> int:
    from tipc.report import write_report
    from tipc.results.outcome import Outcome
    from tipc.session.settings import resolve_history, resolve_judging

    fail_on, trends = resolve_judging(lambda dest: getattr(args, dest))
    store = resolve_history(lambda dest: getattr(args, dest))
    if args.night:
        from tipc.report.night_write import write_night

        print(write_night(args.results_dirs, args.out, args.night_name, trends=trends, warn=_to_stderr, store=store))
        return 0
    outcome: list[Outcome] = []
    index = write_report(
        args.results_dirs,
        args.out,
        args.compare,
        history=args.history,
        threshold=args.threshold / 100.0,
        trends=trends,
        regression=lambda found: print(f"tipc: regression: {found.message()}", file=sys.stderr),
        fail_on_regression="regression" in fail_on,
        outcome=outcome.append,
        store=store,
    )
    print(index)
    return outcome[0].exit_status


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr)
