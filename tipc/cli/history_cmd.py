"""``tipc history list|show|export|prune``: the history store (``tipc.history.store``), read and pruned.

The store is the ``history`` setting, as every command resolves it (``--history``/``--file``, else
``TIPC_HISTORY``, else ``[tool.tipc]`` ``history``), else ``test_tipc/output/tipc-history.sqlite`` in
the current folder (a target checkout). ``list``: each config's runs with figures and its reports'
summaries, and the matrix pages; ``show MODEL MODE``: each run's figures, then each report's verdict;
``export``: every run's figures, report summary and matrix rows as JSON lines (``"kind"``), for
other tools; ``prune``: the store's retention policy applied (every night of the last ``--days`` days,
90 by default, then the newest night of each week), or ``--keep N``: each config's last N runs (and the
matrix's last N pages); the file is compacted after. Nothing else ever removes history: not a run,
not a report.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tipc.history.store import History

DEFAULT = Path("test_tipc") / "output"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--history", "--file", dest="tipc_history", metavar="FILE", default=None,
                        help="the history store (default: TIPC_HISTORY, else [tool.tipc] history, "
                        "else test_tipc/output/tipc-history.sqlite)")  # fmt: skip
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    sub.add_parser("list", help="each config's runs, reports and matrix pages: how many, the first and the last")
    show = sub.add_parser("show", help="a model and mode's runs, each with its figures, and its reports' verdicts")
    show.add_argument("model")
    show.add_argument("mode")
    sub.add_parser("export", help="every run as one JSON line")
    prune = sub.add_parser(
        "prune", help="apply the retention policy: every night of the last 90 days, then one a week; compacts the file"
    )
    prune.add_argument("--keep", type=int, default=None, metavar="N", help="keep each config's last N runs instead")
    prune.add_argument("--days", type=int, default=90, metavar="D", help="days whose every night is kept (default: 90)")


def run(args: argparse.Namespace) -> int:
    from tipc.errors import ResultsError
    from tipc.history.store import HISTORY_FILE, History
    from tipc.session.settings import resolve_history

    path = resolve_history(lambda dest: getattr(args, dest)) or DEFAULT / HISTORY_FILE
    if not path.is_file():
        raise ResultsError(str(path), 0, "no history store here; pass --history FILE (or set TIPC_HISTORY)")
    history = History(path)
    if args.action == "list":
        _list(history)
    elif args.action == "show":
        _show(history, args.model, args.mode)
    elif args.action == "export":
        for line in history.export():
            print(json.dumps(line, sort_keys=True))
    else:
        _prune(history, args.keep, args.days)
    return 0


def _list(history: History) -> None:
    for model, mode, config, count, first, last in history.runs():
        print(f"{model}\t{mode}\t{config}\t{count} run(s)\t{first} .. {last}")
    for model, mode, config, count, first, last in history.summaries():
        what = "page(s)" if (mode, config) == ("", "") else "report(s)"
        print(f"{model}\t{mode}\t{config}\t{count} {what}\t{first} .. {last}")


def _show(history: History, model: str, mode: str) -> None:
    from tipc.errors import ResultsError
    from tipc.history.summaries import RunSummary

    for entry in history.series(model, mode):
        print(f"{entry.run}\t{entry.config}")
        for (stage, node, figure), value in sorted(entry.figures.items()):
            print(f"    {stage}\tnode {node}\t{figure}\t{value:g}")
    for report in reversed(history.reports(model, mode)):
        try:
            summary = RunSummary.from_json(report.text, f"{history.path}: report {report.run}")
        except ResultsError as exc:  # a summary tipc did not write: said, and the others shown
            print(f"tipc: history {history.path}: skipped report {report.run}: {exc}", file=sys.stderr)
            continue
        counts = ", ".join(f"{s} {n}" for s, n in summary.counts().items() if n)
        print(f"report {report.run}\t{report.config}\t{summary.verdict()}\t{counts}")


def _prune(history: History, keep: int | None, days: int) -> None:
    from tipc.errors import ResultsError
    from tipc.history.store import Retention

    if keep is not None and keep < 0:
        raise ResultsError("--keep", 0, f"{keep}: expected 0 or more runs")
    if days < 0:
        raise ResultsError("--days", 0, f"{days}: expected 0 or more days")
    before = history.path.stat().st_size
    removed = history.prune(keep, retention=Retention(daily_days=days))
    after = history.path.stat().st_size
    print(f"tipc history: pruned {removed} run(s) from {history.path} ({before >> 10} KiB -> {after >> 10} KiB)")
