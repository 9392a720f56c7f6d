"""``tipc merge DIR... [--out DIR]``: several nodes' (or shards') results → one results directory."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dirs",
        nargs="+",
        metavar="DIR",
        help="node or shard results directories (each with results.jsonl, run.json, "
        "results_python.log), or a <mode> directory holding node<k>/ or shard<k>/ ones",
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
    from tipc.results.folder import SHARD_PREFIX

    dirs = node_dirs(args.dirs)
    out = merge_dirs(dirs, args.out)
    count = len(ResultsDir(out).records())
    parts = "shard(s)" if any(d.name.startswith(SHARD_PREFIX) for d in dirs) else "node(s)"
    print(f"tipc merge: {len(dirs)} {parts}, {count} record(s) -> {out}")
    return 0
