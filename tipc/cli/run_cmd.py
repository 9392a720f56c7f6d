"""``tipc run``: the same run as ``pytest tipc``, without pytest's output.

Prints each stage's status line as the bash did (yellow on a terminal), a
failed stage's log tail, the summary paragraph and the HTML report's path
(``--report-dir``, default ``./reports``), and the matrix report's over several configs.
A config that cannot be planned is one line, before anything runs; the others run.
Exit status: 0 when no stage failed, timed out or hung, none was blocked (a selected stage that did
not run: ``run_fails``) and every config planned (and, with
``--fail-on regression``, no benchmark figure left its noise band), 1 otherwise,
2 for bad options, 130 when interrupted (results so far are kept). A failed multi-node
preflight stops before the first stage with exit 1; a config that failed a ``--doctor`` check has
its stages blocked, and the run exits 1. The lifecycle itself is
``tipc.session``'s, shared with pytest.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tipc.session.lifecycle import TipcSession
    from tipc.session.settings import ConfigTarget


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tipc.session.options import add_options

    add_options(parser.add_argument)


def run(args: argparse.Namespace) -> int:
    from tipc.errors import OutputError
    from tipc.results.records import run_fails
    from tipc.run import legacy
    from tipc.run.executor import ProcessExecutor, sigterm_as_interrupt
    from tipc.session.lifecycle import TipcSession
    from tipc.session.preflight import failure_message
    from tipc.session.problems import selection_line, split
    from tipc.session.settings import resolve_settings

    settings = resolve_settings(lambda dest: getattr(args, dest))
    if settings is None:
        print("tipc run: error: --config is required (a path, or relative to test_configs/)", file=sys.stderr)
        return 2
    live = _live if settings.live else None
    session = TipcSession(
        settings,
        lambda: ProcessExecutor(live=live),
        echo=lambda line: legacy.echo(line, sys.stdout),
        include_hint=lambda stage: f"run its chain ({stage.chain}) too",
    )
    planned, problems = split(session)
    for problem in problems:  # before anything runs; the other configs run all the same
        print(problem.line(), file=sys.stderr)
    interrupted = stopped = False
    shown = 0
    with sigterm_as_interrupt():
        try:
            refused = session.begin(print)
            shown = len(session.warnings)
            _warn(session.warnings)
            if refused:
                print("\n".join(failure_message(r) for r in refused), file=sys.stderr)
                stopped = True
            else:
                _run_stages(session, planned)
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
    if problems or len(planned) > 1:
        print(selection_line(len(planned), problems))
    if interrupted:
        return 130
    statuses = (r.status for r in session.records())
    if stopped or session.doctor_failed() or any(p.is_error for p in problems) or run_fails(statuses):
        return 1
    return 1 if session.fails_on_findings() else 0


def _results(session: TipcSession) -> None:
    """The summary paragraph, then the reports, each config's and the matrix's."""
    from tipc.run.summary import run_paragraph
    from tipc.session.matrix import write_matrix

    if session.folders():  # none when not one config could be planned
        print(run_paragraph(session.folders(), session.run_id))
    reports = session.write_reports(Path.cwd())
    for html in reports:
        print(f"tipc: report: {html}")
    matrix = write_matrix(session, Path.cwd(), reports)
    if matrix is not None:
        print(f"tipc: matrix report: {matrix}")
    _warn(session.finding_lines())


def _live(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.flush()


def _warn(lines: list[str]) -> None:
    for line in lines:
        print(line, file=sys.stderr)


def _run_stages(session: TipcSession, targets: list[ConfigTarget]) -> None:
    """Every config's stages in the plan's order, then its dropped cases; a failure's story as it ends."""
    from itertools import zip_longest

    from tipc.results.records import Status
    from tipc.run.plan_run import command_text
    from tipc.run.summary import failure_text

    session.schedule((target, stage) for target in targets for stage in session.plan(target).stages())
    for target in targets:
        plan = session.plan(target)
        stages = list(plan.stages())
        for stage, then in zip_longest(stages, stages[1:]):
            if session.settings.run.dry_run:
                print(f"{stage.id}\n    {command_text(stage)}")
            record = session.run_stage(target, stage, then)
            if record.status.is_failure:
                print(failure_text(record), file=sys.stderr)
            elif record.status is Status.BLOCKED:
                print(f"{stage.id}: {record.reason}", file=sys.stderr)
        for skipped in plan.skipped:
            session.skip_dropped(target, skipped)
