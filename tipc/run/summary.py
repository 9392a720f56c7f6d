"""Short texts both fronts print: a failed stage's story, and the end-of-run paragraph."""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from tipc.history.keys import short_name
from tipc.metrics.causes import failure_of, group
from tipc.metrics.logfile import log_tail
from tipc.metrics.logtext import printable
from tipc.plan.golden import NAME as GOLDEN
from tipc.results.folder import LEGACY_LOG, RECORDS, RUN_INFO, ResultsDir
from tipc.results.records import StageRecord, Status
from tipc.run import golden_check
from tipc.run.workerlogs import offset_of, rank_of, record_worker_logs, shown_workers

TAIL_LINES = 20


def last_lines(path: str | Path, lines: int = TAIL_LINES, since: int = 0) -> str:
    try:
        return log_tail(path, 64 * 1024, since, lines)[0]  # enough for 20 lines of any sane log
    except OSError:
        return "(no log)"


def failure_text(record: StageRecord, tail_lines: int = TAIL_LINES) -> str:
    """Status, command, exit code, log path and the log's last lines: no traceback.

    A launch stage adds the tail of each failing rank's ``workerlog.N``, where
    the real error is (the launcher's own output rarely holds it).
    """
    if record.kind == GOLDEN:
        return golden_check.failure_text(record)
    head = f"{record.id}: {record.status.value.upper()}"
    if record.reason:
        head += f" ({record.reason})"
    parts = [
        f"{head} after {record.duration:.1f} s",
        f"command: {shlex.join(record.argv)}",
        f"cwd: {record.cwd}",
        f"exit code: {record.returncode}",
        f"log: {record.log}",
        f"--- last {tail_lines} lines of the log ---",
        last_lines(record.log, tail_lines),
    ]
    for path in shown_workers(record.log, record_worker_logs(record), record.log_offsets):
        parts += [
            f"--- last {tail_lines} lines of rank {rank_of(path)}'s log: {path} ---",
            last_lines(path, tail_lines, offset_of(record, path)),
        ]
    return printable("\n".join(parts))  # ids, paths and commands hold config text: it may carry escapes


def counts_text(records: Iterable[StageRecord]) -> str:
    """``5 passed (1 flaky), 1 failed``: a flaky stage passed on a later attempt (a rerun plugin's)."""
    records = list(records)
    counts = Counter(r.status for r in records)
    flaky = sum(r.flaky for r in records)
    passed = f" ({flaky} flaky)" if flaky else ""
    text = (f"{counts[s]} {s.value}" + (passed if s is Status.PASSED else "") for s in Status if counts[s])
    return ", ".join(text) or "no stage finished"


def causes_lines(failed: Iterable[StageRecord], earlier: Sequence[tuple[str, frozenset[str]]] = ()) -> list[str]:
    """Failures with one cause as one line, the largest group first (``tipc.metrics.causes.group``);
    ``earlier``: the signatures of earlier runs, oldest first, which tell new causes from recurring ones."""
    groups = group((failure_of(short_name(r.config), r) for r in failed), earlier)
    if not groups:
        return []
    return ["tipc: failures by cause:", *(f"  {g.line(history=bool(earlier))}" for g in groups)]


def run_paragraph(
    results: Sequence[ResultsDir], run_id: str, earlier: Sequence[tuple[str, frozenset[str]]] = ()
) -> str:
    """One paragraph per results folder: counts per status of this run's stages (each once;
    records carried over from earlier runs are not counted) and where the results are; then the
    run's failures by cause (``earlier``: see ``causes_lines``)."""
    parts = []
    failures: list[StageRecord] = []
    for out in results:
        records = [r for r in out.records(warn=lambda _: None) if r.run_id == run_id]
        parts.append(f"{counts_text(records)} in {out.path}/ ({LEGACY_LOG}, {RECORDS}, {RUN_INFO}).")
        failed = [r for r in records if r.status.is_failure]
        failures += failed
        if failed:
            parts.append("Failed: " + "; ".join(f"{r.id} ({r.status.value}, {Path(r.log).name})" for r in failed) + ".")
    lines = ["tipc: " + " ".join(parts), *causes_lines(failures, earlier)]
    return printable("\n".join(lines))  # the folders are named after the config's model_name
