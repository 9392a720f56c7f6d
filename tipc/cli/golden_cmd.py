"""``tipc golden update --from RESULTS_DIR…``: write a config's goldens from one run or several.

The results folders must hold runs of one config in one mode (``run.json``'s ``config`` and
``mode``). One golden is written per inference precision the runs predicted at, into
``--golden-dir`` (default: ``golden/`` beside the config), as ``<config stem>/<mode>_<precision>.yaml``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="golden_command", required=True, metavar="ACTION")
    update = sub.add_parser("update", help="write goldens from results folders", description=__doc__)
    update.add_argument(
        "--from",
        dest="sources",
        nargs="+",
        type=Path,
        required=True,
        metavar="RESULTS_DIR",
        help="results folders (run.json + results.jsonl) of one config and mode; "
        "several give tolerances from their spread",
    )
    update.add_argument(
        "--golden-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="where goldens go (default: golden/ beside the config the runs ran)",
    )


def run(args: argparse.Namespace) -> int:
    from tipc.errors import UsageError
    from tipc.files.write import write_atomic, writing
    from tipc.golden.files import golden_path, golden_text
    from tipc.golden.update import derive, run_facts
    from tipc.plan.golden import GOLDEN_DIR
    from tipc.results.folder import load_results_dir

    loaded = [(source, *load_results_dir(source, lambda w: print(w, file=sys.stderr))) for source in args.sources]
    config, mode = loaded[0][1].config, loaded[0][1].mode
    for source, info, _ in loaded[1:]:
        if (info.config, info.mode) != (config, mode):
            raise UsageError(
                f"tipc golden update: {source} holds {info.config} in {info.mode}, not {config} in {mode}: "
                "give results folders of one config and mode"
            )
    runs = [run_facts(str(s), (r for r in records if r.config == config)) for s, _, records in loaded]
    if args.golden_dir is None and not Path(config).is_file():
        raise UsageError(
            f"tipc golden update: the runs' config {config!r:.200} is not a file here, so there is no golden/ "
            "beside it: pass --golden-dir DIR"
        )
    folder = args.golden_dir or Path(config).parent / GOLDEN_DIR
    origin = f"{Path(config).name} in {mode}, from run(s) {', '.join(info.run_id or '?' for _, info, _ in loaded)}"
    for precision in runs[0].predictions or {"fp32": ()}:
        path = golden_path(folder, Path(config).stem, mode, precision)
        with writing(path.parent):
            path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, golden_text(derive(runs, precision, mode, str(path)), origin))
        print(path)
    return 0
