"""``tipc merge DIR... [--out DIR]``: several nodes' results → one results directory."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dirs",
        nargs="+",
        metavar="DIR",
        help="node results directories (each with results.jsonl, run.json, "
        "results_python.log), or a <mode> directory holding node<k>/ ones",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="where to write the merged results (default: the node directories' common parent)",
    )


def run(args: argparse.Namespace) -> int:
    from tipc.cluster.merge import merge_dirs
    from tipc.results import ResultsDir, node_dirs

    dirs = node_dirs(args.dirs)
    out = merge_dirs(dirs, args.out)
    count = len(ResultsDir(out).records())
    print(f"tipc merge: {len(dirs)} node(s), {count} record(s) -> {out}")
    return 0
