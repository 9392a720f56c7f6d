"""``tipc bisect``: the first commit of the target repo at which a stage fails (``tipc.triage.bisect``); with
``--figure NAME``, at which one of its figures regressed by the night's rule (``tipc.triage.figure``); with
``--paddle-good``/``--paddle-bad``, the first Paddle release at which it fails (``tipc.triage.releases``).

Exit status: 0 when a first bad commit (release) was named, 1 when none could be (the stage does not fail at
``--bad``, already fails at ``--good``, or every commit near the change could not be tested; the figure did not
regress at ``--bad``, or could not be measured), 2 for bad options.
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
    parser.add_argument("--good", metavar="REV", help="a commit at which the stage passes")
    parser.add_argument("--bad", metavar="REV", help="a later commit at which it fails")
    parser.add_argument("--paddle-good", metavar="VERSION",
                        help="bisect Paddle releases instead: one with which the stage passes (3.0.0)")  # fmt: skip
    parser.add_argument("--paddle-bad", metavar="VERSION", help="a later Paddle release with which it fails")
    parser.add_argument("--paddle-versions", metavar="V,V,...", default=None,
                        help="the releases to search (default: those `pip index versions` lists)")  # fmt: skip
    parser.add_argument("--paddle-package", metavar="NAME", default="paddlepaddle",
                        help="the package to install (paddlepaddle-gpu for GPU builds)")  # fmt: skip
    parser.add_argument("--python", metavar="PY", default=sys.executable,
                        help="Paddle releases: each release's venv is made from this interpreter, its packages "
                        "visible (default: this one)")  # fmt: skip
    parser.add_argument("--pip-option", action="append", default=[], metavar="OPT",
                        help="Paddle releases: an option of every pip call, repeatable "
                        "(--pip-option=--index-url=URL, --pip-option=--find-links=DIR)")  # fmt: skip
    parser.add_argument("--repo", type=Path, default=None, metavar="DIR",
                        help="the target's git repository (default: the one holding the config)")  # fmt: skip
    parser.add_argument("--work-dir", type=Path, default=None, metavar="DIR",
                        help="keep the clone and each commit's results and logs here (default: removed)")  # fmt: skip
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("run_args", nargs=argparse.REMAINDER, metavar="-- RUN-OPTIONS",
                        help="options of each commit's `tipc run` (-- --python PY --timeout train=600)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from tipc.errors import UsageError
    from tipc.triage.bisect import bisect, text
    from tipc.triage.releases import bisect_releases

    run_args = args.run_args[1:] if args.run_args[:1] == ["--"] else args.run_args
    commits, releases = (args.good, args.bad), (args.paddle_good, args.paddle_bad)
    if any(commits) == any(releases) or None in (commits if any(commits) else releases):
        raise UsageError("give --good and --bad (commits), or --paddle-good and --paddle-bad (Paddle releases)")
    say = lambda line: print(line, file=sys.stderr)  # noqa: E731 - the progress of both searches
    config, given = Path(args.config), [v.strip() for v in (args.paddle_versions or "").split(",") if v.strip()]
    if args.figure is not None:
        if any(releases):
            raise UsageError("--figure bisects commits: give --good and --bad")
        by_figure = _figure(args, run_args)
        print(by_figure.to_json() if args.format == "json" else text(by_figure))
        return 0 if by_figure.first_bad is not None else 1
    if any(releases):
        found = bisect_releases(config, args.mode, args.stage, args.paddle_good, args.paddle_bad, versions=given,
                                package=args.paddle_package, python=args.python, pip_options=args.pip_option,
                                run_args=run_args, work=args.work_dir, say=say)  # fmt: skip
        print(found.to_json() if args.format == "json" else found.text())
        return 0 if found.first_bad is not None else 1
    by_commit = bisect(config, args.mode, args.stage, args.good, args.bad, repo=args.repo, run_args=run_args,
                       work=args.work_dir, say=say)  # fmt: skip
    print(by_commit.to_json() if args.format == "json" else text(by_commit))
    return 0 if by_commit.first_bad is not None else 1


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
