"""``tipc report RESULTS_DIR… [--out reports] [--compare DIR]``: render the HTML report, print its path."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
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


def run(args: argparse.Namespace) -> int:
    from tipc.report import write_report

    index = write_report(
        args.results_dirs, args.out, args.compare, history=args.history, threshold=args.threshold / 100.0
    )
    print(index)
    return 0
