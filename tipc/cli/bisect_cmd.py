"""``tipc bisect``: the first commit of the target repo at which a stage fails (``tipc.triage.bisect``), or,
with ``--figure NAME``, at which one of its figures regressed by the night's rule (``tipc.triage.figure``).

Exit status: 0 when a first bad commit was named, 1 when none could be (the stage does not fail at ``--bad``,
already fails at ``--good``, or every commit near the change could not be tested; the figure did not regress
at ``--bad``, or could not be measured), 2 for bad options.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tipc.triage.bisect import Bisection

TREND_FLAGS = ("--trend-runs", "--noise-k", "--trend-min-runs")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, metavar="PATH", help="the config whose chain holds the stage")
    parser.add_argument("--mode", required=True, metavar="MODE")
    parser.add_argument("--stage", required=True, metavar="ID", help="the failing stage's id, as `tipc plan` shows it")
    parser.add_argument("--figure", default=None, metavar="NAME",
                        help="bisect a regressed figure of the stage instead (ips, inference_ms, throughput, "
                        "cpu_rss_mb, gpu_rss_mb, peak_rss_mb), judged by the night's regression rule against its "
                        "values at --good")  # fmt: skip
    from tipc.session.options import RUN_OPTIONS

    for names, kwargs in RUN_OPTIONS:  # --figure's rule: the night's, from the same flags, environment or file
        if names[0] in TREND_FLAGS:
            parser.add_argument(*names, **kwargs)
    parser.add_argument("--good", required=True, metavar="REV", help="a commit at which the stage passes")
    parser.add_argument("--bad", required=True, metavar="REV", help="a later commit at which it fails")
    parser.add_argument("--repo", type=Path, default=None, metavar="DIR",
                        help="the target's git repository (default: the one holding the config)")  # fmt: skip
    parser.add_argument("--work-dir", type=Path, default=None, metavar="DIR",
                        help="keep the clone and each commit's results and logs here (default: removed)")  # fmt: skip
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("run_args", nargs=argparse.REMAINDER, metavar="-- RUN-OPTIONS",
                        help="options of each commit's `tipc run` (-- --python PY --timeout train=600)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from tipc.triage.bisect import bisect, text

    run_args = args.run_args[1:] if args.run_args[:1] == ["--"] else args.run_args
    if args.figure is not None:
        found = _figure(args, run_args)
        print(found.to_json() if args.format == "json" else text(found))
        return 0 if found.first_bad is not None else 1
    found = bisect(
        Path(args.config),
        args.mode,
        args.stage,
        args.good,
        args.bad,
        repo=args.repo,
        run_args=run_args,
        work=args.work_dir,
        say=lambda line: print(line, file=sys.stderr),
    )
    print(found.to_json() if args.format == "json" else text(found))
    return 0 if found.first_bad is not None else 1


def _figure(args: argparse.Namespace, run_args: list[str]) -> Bisection:
    from tipc.errors import UsageError
    from tipc.report.figures import FIGURE_BY_KEY, stage_figures
    from tipc.session.settings import resolve_layers, resolve_trends
    from tipc.triage.figure import bisect_figure

    if args.figure not in FIGURE_BY_KEY:
        raise UsageError(f"--figure {args.figure}: expected one of {', '.join(FIGURE_BY_KEY)}")
    return bisect_figure(
        Path(args.config),
        args.mode,
        args.stage,
        args.figure,
        args.good,
        args.bad,
        lambda record: stage_figures(record).get(args.figure),
        FIGURE_BY_KEY[args.figure].higher_is_better,
        unit=FIGURE_BY_KEY[args.figure].unit,
        repo=args.repo,
        run_args=run_args,
        work=args.work_dir,
        policy=resolve_trends(resolve_layers(lambda dest: getattr(args, dest, None))[0]),
        say=lambda line: print(line, file=sys.stderr),
    )
