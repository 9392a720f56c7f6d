"""``tipc history list|show|export|prune``: the history store (``tipc.history.store``), read and pruned.

The store is ``--file``, else ``TIPC_HISTORY``, else ``test_tipc/output/tipc-history.sqlite`` in
the current folder (a target checkout). ``list``: each config's runs with figures and its reports'
summaries, and the matrix pages; ``show MODEL MODE``: each run's figures, then each report's verdict;
``export``: every run's figures, report summary and matrix rows as JSON lines (``"kind"``), for
other tools; ``prune --keep N``: each config's last N runs (and the matrix's last N pages) kept.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

DEFAULT = Path("test_tipc") / "output"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--file", metavar="FILE", default=None, help="the history store (default: TIPC_HISTORY, "
                        "else test_tipc/output/tipc-history.sqlite)")  # fmt: skip
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    sub.add_parser("list", help="each config's runs, reports and matrix pages: how many, the first and the last")
    show = sub.add_parser("show", help="a model and mode's runs, each with its figures, and its reports' verdicts")
    show.add_argument("model")
    show.add_argument("mode")
    sub.add_parser("export", help="every run as one JSON line")
    prune = sub.add_parser("prune", help="keep each config's last runs")
    prune.add_argument("--keep", type=int, required=True, metavar="N", help="runs kept per config")


def run(args: argparse.Namespace) -> int:
    from tipc.errors import ResultsError
    from tipc.history.store import HISTORY_FILE, History
    from tipc.report.compare import RunSummary

    path = Path(args.file or os.environ.get("TIPC_HISTORY") or DEFAULT / HISTORY_FILE)
    if not path.is_file():
        raise ResultsError(str(path), 0, "no history store here; pass --file FILE (or set TIPC_HISTORY)")
    history = History(path)
    if args.action == "list":
        for model, mode, config, count, first, last in history.runs():
            print(f"{model}\t{mode}\t{config}\t{count} run(s)\t{first} .. {last}")
        for model, mode, config, count, first, last in history.summaries():
            what = "page(s)" if (mode, config) == ("", "") else "report(s)"
            print(f"{model}\t{mode}\t{config}\t{count} {what}\t{first} .. {last}")
    elif args.action == "show":
        for entry in history.series(args.model, args.mode):
            print(f"{entry.run}\t{entry.config}")
            for (stage, node, figure), value in sorted(entry.figures.items()):
                print(f"    {stage}\tnode {node}\t{figure}\t{value:g}")
        for report in reversed(history.reports(args.model, args.mode)):
            summary = RunSummary.from_json(report.text, f"{path}: report {report.run}")
            counts = ", ".join(f"{s} {n}" for s, n in summary.counts().items() if n)
            print(f"report {report.run}\t{report.config}\t{summary.verdict()}\t{counts}")
    elif args.action == "export":
        for line in history.export():
            print(json.dumps(line, sort_keys=True))
    else:
        if args.keep < 0:
            raise ResultsError("--keep", 0, f"{args.keep}: expected 0 or more runs")
        print(f"tipc history: pruned {history.prune(args.keep)} run(s) from {path}")
    return 0
