"""``tipc run``: the same run as ``pytest tipc``, without pytest's output.

Prints each stage's status line as the bash did (yellow on a terminal), a
failed stage's log tail, the summary paragraph and the HTML report's path
(``--report-dir``, default ``./reports``), and the matrix report's over several configs.
A config that cannot be planned is one line, before anything runs; the others run.
Exit status: 0 when no stage failed, timed out or hung, none was blocked (a selected stage that did
not run: ``tipc.results.outcome``) and every config planned (and, with
``--fail-on regression``, no benchmark figure left its noise band), 1 otherwise,
2 for bad options, 5 for a dry run (every command printed, nothing ran: never 0, which reads as
a pass), 130 when interrupted (results so far are kept). A stdout closed before the
end (``tipc run --live | head -1``) stops the echo, not the run: every stage is run, recorded
and reported as without the pipe, stderr says so, and the status is the run's; a stdout closed
from the start (``tipc run >&-``) is /dev/null, and the run is whole too. A failed multi-node
preflight stops before the first stage with exit 1; a config that failed a ``--doctor`` check has
its stages blocked, and the run exits 1. The lifecycle itself is
``tipc.session``'s, shared with pytest.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tipc.session.lifecycle import TipcSession
    from tipc.session.progress import Progress
    from tipc.session.settings import ConfigTarget, Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tipc.session.options import add_options

    add_options(parser.add_argument)
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="no progress while a stage runs (no status line, no heartbeat)"
    )


def run(args: argparse.Namespace) -> int:
    from tipc.errors import OutputError
    from tipc.proc.executor import ProcessExecutor, sigterm_as_interrupt
    from tipc.results.outcome import Outcome
    from tipc.run import legacy
    from tipc.session.lifecycle import TipcSession, verdict
    from tipc.session.preflight import failure_message
    from tipc.session.problems import no_stage, selection_line, split
    from tipc.session.settings import resolve_settings

    _closed.clear()
    settings = resolve_settings(lambda dest: getattr(args, dest))
    if settings is None:
        print("tipc run: error: --config is required (a path, or relative to test_configs/)", file=sys.stderr)
        return 2
    live = _live if settings.live else None
    progress = _progress(settings, quiet=bool(getattr(args, "quiet", False)))
    session = TipcSession(
        settings,
        lambda: ProcessExecutor(live=live, progress=progress),
        echo=lambda line: _out(lambda: legacy.echo(line, sys.stdout)),
        include_hint=lambda stage: f"run its chain ({stage.chain}) too",
    )
    planned, problems = split(session)
    for problem in problems:  # before anything runs; the other configs run all the same
        print(problem.line(), file=sys.stderr)
    interrupted = stopped = False
    shown = 0
    with sigterm_as_interrupt():
        try:
            refused = session.begin(_print)
            shown = len(session.warnings)
            _warn(session.warnings)
            if refused:
                print("\n".join(failure_message(r) for r in refused), file=sys.stderr)
                stopped = True
            else:
                _run_stages(session, planned, progress)
        except KeyboardInterrupt:
            interrupted = True
        except OutputError as exc:  # a full disk: nothing later could be recorded either
            print(f"tipc: {exc}; the run stopped here, the results written so far are kept", file=sys.stderr)
            stopped = True
        finally:
            session.end()
    if not settings.run.dry_run:
        _results(session)
        _warn(session.warnings[shown:])
    empty = no_stage(session, planned)
    if problems or empty or len(planned) > 1:
        _print(selection_line(len(planned), problems, empty))
    if _closed:
        print("tipc: stdout was closed before the run ended (a reader such as `head` left): what was not "
              "shown is in the logs, the results and the report", file=sys.stderr)  # fmt: skip
    config_errors = any(p.is_error for p in problems)
    result = verdict(session, interrupted=interrupted, stopped=stopped, config_errors=config_errors)
    if result is Outcome.DRY_RUN:
        _print(f"tipc: dry run: every command was printed; nothing ran (exit status {result.exit_status}).")
    return result.exit_status


def _results(session: TipcSession) -> None:
    """The summary paragraph, then the reports, each config's and the matrix's."""
    from tipc.run.summary import run_paragraph
    from tipc.session.matrix import cause_history, write_matrix

    if session.folders():  # none when not one config could be planned
        _print(run_paragraph(session.folders(), session.run_id, cause_history(session, Path.cwd())))
    reports = session.write_reports(Path.cwd())
    for html in reports:
        _print(f"tipc: report: {html}")
    if session.night_index is not None:
        _print(f"tipc: night index: {session.night_index}")
    matrix = write_matrix(session, Path.cwd(), reports)
    if matrix is not None:
        _print(f"tipc: matrix report: {matrix}")
    _warn(session.finding_lines())


_closed: list[bool] = []  # stdout's reader has left


def _out(write: Callable[[], None]) -> None:
    """Write to stdout unless its reader has left; when it leaves (a ``BrokenPipeError``), stdout
    goes to /dev/null from then on (what Python flushes at exit too) and the run goes on."""
    if _closed:
        return
    try:
        write()
    except BrokenPipeError:
        _closed.append(True)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _print(text: str) -> None:
    _out(lambda: print(text, flush=True))


def _write(text: str) -> None:
    def write() -> None:
        sys.stdout.write(text)
        sys.stdout.flush()

    _out(write)


def _live(data: bytes) -> None:
    def write() -> None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()

    _out(write)


def _warn(lines: list[str]) -> None:
    for line in lines:
        print(line, file=sys.stderr)


def _progress(settings: Settings, quiet: bool) -> Progress | None:
    """A status line on a terminal, a heartbeat line off one; none with ``-q``, ``--live`` (the
    stage's own output is shown) or a dry run."""
    from tipc.session.progress import for_front

    if settings.live or settings.run.dry_run:
        return None
    terminal = sys.stdout.isatty()
    return for_front(
        _write,
        terminal=terminal,
        quiet=quiet,
        heartbeat=settings.heartbeat,
        column=lambda: 0,  # every line tipc run prints ends with its line break
        width=lambda: shutil.get_terminal_size().columns,
    )


def _run_stages(session: TipcSession, targets: list[ConfigTarget], progress: Progress | None) -> None:
    """Every config's stages in the plan's order, then its dropped cases; a failure's story as it ends."""
    from tipc.results.records import Status
    from tipc.run.plan_run import command_text
    from tipc.run.summary import failure_text

    stages = [(target, stage) for target in targets for stage in session.plan(target).stages()]
    if progress is not None:
        progress.total = len(stages)
        progress.plan(session.expected(target, stage) for target, stage in stages)
    session.schedule(stages)
    try:
        for target in targets:
            plan = session.plan(target)
            for stage in plan.stages():
                if session.settings.run.dry_run:
                    _print(f"{stage.id}\n    {command_text(stage)}")
                record = session.run_stage(target, stage)
                if record.status.is_failure:
                    print(failure_text(record), file=sys.stderr)
                elif record.status is Status.BLOCKED:
                    print(f"{stage.id}: {record.reason}", file=sys.stderr)
            for skipped in plan.skipped:
                session.skip_dropped(target, skipped)
    except KeyboardInterrupt:
        session.record_unreached(stages)  # the scheduler's stop: what it left is listed as not run
        raise
