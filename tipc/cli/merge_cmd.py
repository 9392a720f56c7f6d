"""``tipc merge DIR... [--out DIR]``: several nodes' results → one results directory."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dirs", nargs="+", metavar="DIR",
                        help="node results directories (each with results.jsonl, run.json, "
                             "results_python.log), or a <mode> directory holding node<k>/ ones")
    parser.add_argument("--out", metavar="DIR", default=None,
                        help="where to write the merged results (default: the node "
                             "directories' common parent)")


def run(args: argparse.Namespace) -> int:
    from tipc.cluster.merge import RESULTS, merge_dirs, node_dirs

    dirs = node_dirs(args.dirs)
    out = merge_dirs(dirs, args.out)
    count = sum(1 for line in (out / RESULTS).read_text(encoding="utf-8").splitlines() if line.strip())
    print(f"tipc merge: {len(dirs)} node(s), {count} record(s) -> {out}")
    return 0
