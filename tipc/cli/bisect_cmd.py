"""``tipc bisect``: the first commit of the target repo at which a stage fails (``tipc.triage.bisect``).

Exit status: 0 when a first bad commit was named, 1 when none could be (the stage does not fail at ``--bad``,
already fails at ``--good``, or every commit near the change could not be tested), 2 for bad options.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, metavar="PATH", help="the config whose chain holds the stage")
    parser.add_argument("--mode", required=True, metavar="MODE")
    parser.add_argument("--stage", required=True, metavar="ID", help="the failing stage's id, as `tipc plan` shows it")
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
