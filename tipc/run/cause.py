"""A failed stage's cause, from its record and its own part of its logs (``tipc.metrics.causes``).

Read when the stage ends, bounded: the last ``TAIL`` bytes of its part of each log. A launch stage's
error is in its failing ranks' ``workerlog.N``, read first; then the stage's own log. The rules are
the built-in ones, those of the ``pytest_tipc_cause_rules`` hook and the signatures of the doctor's known-bad
pairs, which carry their fix.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from tipc.metrics.causes import Cause, Rule, of_failure, rule_from_dict
from tipc.metrics.logfile import log_tail
from tipc.results.records import StageRecord
from tipc.run.workerlogs import offset_of, record_worker_logs, shown_workers

TAIL = 64 * 1024  # bytes of each log's end: an error and its traceback, not a night of steps


def log_parts(record: StageRecord) -> list[str]:
    """The texts the cause is looked for in, the failing ranks' first."""
    texts = []
    workers = shown_workers(record.log, record_worker_logs(record), record.log_offsets)
    parts: list[tuple[str | Path, int]] = [*((p, offset_of(record, p)) for p in workers), (record.log, 0)]
    for path, since in parts:
        with contextlib.suppress(OSError):  # a log that cannot be read says nothing
            texts.append(log_tail(path, TAIL, since)[0])
    return [t for t in texts if t]


def plugin_rules(warn: Callable[[str], None]) -> list[Rule]:
    """The rules of the ``pytest_tipc_cause_rules`` hook; a bad one is skipped with ``warn`` naming it."""
    from tipc.suites.registry import cause_rules  # the plugin manager: only when a stage failed

    rules = []
    for owner, d in cause_rules():
        try:
            rules.append(rule_from_dict(d, f"tipc: a pytest_tipc_cause_rules rule of {owner}"))
        except ValueError as exc:
            warn(f"{exc}; skipped")
    return rules


def known_bad_rules() -> list[Rule]:
    """The signatures of the doctor's known-bad pairs, each with its fix (``tipc.doctor.known_bad``)."""
    from tipc.doctor.known_bad import cause_rules, load_table  # only when a stage failed

    return [rule_from_dict(d, "known_bad.json") for d in cause_rules(load_table())]


def cause_of(record: StageRecord, warn: Callable[[str], None]) -> Cause:
    rules = [*plugin_rules(warn), *known_bad_rules()]
    return of_failure(record.status.value, record.reason, log_parts(record), rules)
