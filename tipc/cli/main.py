"""``tipc <command>``: a thin front; each command lives in its own module.

A command module defines ``add_arguments(parser)`` and ``run(args) -> int`` and
keeps heavy imports inside ``run`` so that building the parser stays cheap. Only the named
command's module is imported and its options declared (``tipc run`` pays for no other command's).
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys

from tipc.errors import TipcError
from tipc.version import VERSION

DESCRIPTION = "tipc: the TIPC train → eval → export → infer chain as a typed plan and a pytest suite."
COMMANDS = {
    "plan": ("tipc.cli.plan_cmd", "print the plan a config would run, touching nothing"),
    "run": ("tipc.cli.run_cmd", "run a plan (same as `pytest tipc`, without pytest's output)"),
    "prepare": ("tipc.cli.prepare_cmd", "make the data a config's stages read, offline"),
    "report": ("tipc.cli.report_cmd", "render an HTML report from results directories"),
    "merge": ("tipc.cli.merge_cmd", "merge several nodes' results into one directory"),
    "doctor": ("tipc.cli.doctor_cmd", "check the machine and the stage interpreter for a config, before a run"),
    "history": ("tipc.cli.history_cmd", "the history store: list, show, export or prune its runs"),
    "bisect": ("tipc.cli.bisect_cmd", "the first commit of the target repo at which a stage fails"),
    "golden": ("tipc.cli.golden_cmd", "golden results: `tipc golden update --from RESULTS_DIR…` writes them"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Every command with its options, or with ``command`` only that one's options (the others are
    listed by name, for ``tipc --help`` and argparse's errors)."""
    parser = argparse.ArgumentParser(prog="tipc", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"tipc {VERSION}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module)
        if command in (None, name):
            importlib.import_module(module).add_arguments(p)
    return parser


def command_of(argv: list[str]) -> str | None:
    """The command ``argv`` names (its first word that is not an option), None when it names none."""
    first = next((arg for arg in argv if not arg.startswith("-")), None)
    return first if first in COMMANDS else None


def _closed_streams_to_devnull() -> None:
    """A stream closed before tipc started (``tipc run >&-``): Python gives it as None, and every
    write would raise. Its descriptor is pointed at /dev/null instead, so that what would have been
    printed is dropped, the run goes on, and no file a stage opens can take the descriptor's number."""
    for fd, name in ((1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is None:
            null = os.open(os.devnull, os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            setattr(sys, name, open(fd, "w", closefd=False))  # noqa: SIM115 (the process's own stream)


def main(argv: list[str] | None = None) -> int:
    _closed_streams_to_devnull()
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(command_of(argv)).parse_args(argv)
    try:
        code: int = importlib.import_module(args._module).run(args)  # a command module's run(args) -> int
        sys.stdout.flush()  # here, where a closed pipe can still be handled below
        return code
    except TipcError as exc:  # bad input or options: the message says what and where; no traceback
        from tipc.metrics.logtext import printable  # messages quote input: escapes shown, not obeyed

        print(f"tipc: error: {printable(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader left (`tipc plan … | head`). Point stdout at /dev/null so that the
        # interpreter's last flush cannot fail again, and end as SIGPIPE would have.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE


if __name__ == "__main__":
    sys.exit(main())
