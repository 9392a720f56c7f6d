"""``tipc run``: the same run as ``pytest tipc``, without pytest's output.

Prints each stage's status line as the bash did (yellow on a terminal), a
failed stage's log tail, the summary paragraph and the HTML report's path
(``--report-dir``, default ``./reports``). Exit status: 0 when every
stage passed or was skipped by rule, 1 when any failed, timed out or hung,
2 for bad options, 130 when interrupted (results so far are kept). A failed
multi-node preflight stops before the first stage with exit 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tipc.plugin.settings import add_options

    add_options(parser.add_argument)


def run(args: argparse.Namespace) -> int:
    from tipc.config import load_config
    from tipc.plan import build_plan
    from tipc.plugin.final_report import final_report
    from tipc.plugin.preflight import failure_message, preflight
    from tipc.plugin.settings import SettingsError, resolve_settings
    from tipc.run import legacy
    from tipc.run.executor import ProcessExecutor, sigterm_as_interrupt
    from tipc.run.record import Status
    from tipc.run.session import RunSession, command_text
    from tipc.run.summary import failure_text, run_paragraph

    try:
        settings = resolve_settings(lambda dest: getattr(args, dest))
    except SettingsError as exc:
        print(f"tipc run: error: {exc}", file=sys.stderr)
        return 2
    if settings is None:
        print("tipc run: error: --config is required (a path, or relative to test_configs/)", file=sys.stderr)
        return 2
    FAILURES = (Status.FAILED, Status.TIMEOUT, Status.HUNG)
    live = (lambda data: (sys.stdout.buffer.write(data), sys.stdout.flush())) if settings.live else None
    sessions, failed, interrupted = [], False, False
    with sigterm_as_interrupt():
        for target in settings.targets:
            plan = build_plan(load_config(str(target.path)), target.options)
            session = RunSession(plan, settings.run, ProcessExecutor(live=live),
                                 echo=lambda line: legacy.echo(line, sys.stdout),
                                 include_hint=lambda stage: f"run its chain ({stage.chain}) too")
            sessions.append(session)
            session.begin()
            report = preflight(session, target.node, print)
            if report is not None and not report.ok:
                print(failure_message(report), file=sys.stderr)
                session.end()
                failed = True
                break
            try:
                for stage in plan.stages():
                    if settings.run.dry_run:
                        print(f"{stage.id}\n    {command_text(stage)}")
                    record = session.run_stage(stage)
                    if record.status in FAILURES:
                        failed = True
                        print(failure_text(record), file=sys.stderr)
                    elif record.status is Status.BLOCKED:
                        print(f"{stage.id}: {record.reason}", file=sys.stderr)
                for skipped in plan.skipped:
                    session.skip_dropped(skipped)
            except KeyboardInterrupt:
                interrupted = True
            finally:
                session.end()
            if interrupted:
                break
    if not settings.run.dry_run:
        results = [s.results for s in sessions]
        print(run_paragraph(results))
        html = final_report(settings, results, Path.cwd() / "reports", lambda text: print(text, file=sys.stderr))
        if html is not None:
            print(f"tipc: report: {html}")
    if interrupted:
        return 130
    return 1 if failed else 0
