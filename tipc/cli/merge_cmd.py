"""``tipc merge DIR... [--out DIR] [--run-group ID]``: one night's nodes (or shards) → one results directory.

Exit 0: every part of the group reported and was merged, and the night it makes passed; 1: merged,
but the group is incomplete (a shard of its split or a node of its list did not report, or was stopped
before its end, by the scheduler or a kill: named with its chains on stderr and in the merged ``run.json``'s
notes; the night is incomplete, neither passed nor failed), or the night failed (a stage failed; with
``--fail-on regression``, ``TIPC_FAIL_ON`` or ``[tool.tipc]``, a figure regressed against the history,
read but not written: the report that follows records the night); 2: nothing merged (parts that
disagree, no part of the group). The exit status of a night is ``tipc.results.outcome``'s table.
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tipc.session.options import add_judging_options

    parser.add_argument(
        "dirs",
        nargs="+",
        metavar="DIR",
        help="node or shard results directories (each with results.jsonl, run.json, "
        "results_python.log), or a <mode> directory holding node<k>/ or shards/<group>/shard<K>/ ones",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="where to write the merged results (default: the parts' <mode> directory)",
    )
    parser.add_argument(
        "--run-group",
        metavar="ID",
        default=None,
        help="the night to merge (run.json's run_group; default: the group of the part that started last); "
        "parts of other groups are set aside and named",
    )
    add_judging_options(parser.add_argument)


def run(args: argparse.Namespace) -> int:
    from tipc.cluster.merge import merge
    from tipc.report.write import judge_night
    from tipc.results.outcome import Outcome
    from tipc.session.settings import resolve_history, resolve_judging

    fail_on, trends = resolve_judging(lambda dest: getattr(args, dest))
    merged = merge(args.dirs, args.out, args.run_group)
    group = f"run group {merged.group}: " if merged.group else "no run group (parts of any night look alike): "
    print(f"tipc merge: {group}{merged.parts} {merged.kind}(s), {merged.records} record(s) -> {merged.path}")
    for line in merged.set_aside:
        print(f"tipc merge: set aside (another night's, not merged): {line}")
    if merged.gaps:
        print(
            f"tipc merge: incomplete: {', '.join(merged.gaps)} of run group {merged.group or '(none)'} did not "
            "report; their chains are not in these results",
            file=sys.stderr,
        )
    for line in merged.stopped:
        print(f"tipc merge: incomplete: {line}", file=sys.stderr)
    if merged.incomplete:
        return Outcome.INCOMPLETE.exit_status
    night, regressions = judge_night(
        [merged.path],
        trends,
        "regression" in fail_on,
        lambda line: print(line, file=sys.stderr),
        resolve_history(lambda dest: getattr(args, dest)),
    )
    if night.exit_status:
        found = f": {regressions} regression(s)" if regressions else ""
        print(f"tipc merge: the night {night.value}{found}", file=sys.stderr)
    return night.exit_status
