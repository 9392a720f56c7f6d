"""Per-stage details, grouped by chain (× node). The only part of the model that reads files: log ends.

A log the stage appended to is read from the stage's own offset on: what an earlier run
wrote before it (a traceback, say) is not this stage's evidence.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from tipc.history.store import StageKey
from tipc.report.load import Roots, RunIds, carried_note, readable
from tipc.report.logtail import command_text, file_link, log_tail
from tipc.report.model import Link, LogTail, StageGroup, StageView
from tipc.report.naming import RowKey, node_label, row_key, stage_key, stage_name
from tipc.report.states import state_text
from tipc.results.records import StageRecord, Status
from tipc.run.workerlogs import failing_workers, offset_of, record_worker_logs


def _env(env: Mapping[str, str | None]) -> tuple[tuple[str, str], ...]:
    return tuple((k, "(removed)" if v is None else v) for k, v in sorted(env.items()))


def _metrics(metrics: Mapping[str, object]) -> tuple[tuple[str, str], ...]:
    return tuple((k, str(v)) for k, v in sorted(metrics.items()) if v is not None and v != "")


OUTSIDE = "not shown: the record names a log outside the run's results folder and repo"


def stage_view(
    record: StageRecord, anchor: str, report_dir: Path, multi: bool, carried: str = "", roots: Roots = None
) -> StageView:
    """``carried``: what says the record is an earlier run's, "" for this run's (see ``load.carried_note``);
    ``roots``: where the logs it names may lie (``load.run_roots``)."""
    workers = tuple(p for p in record_worker_logs(record) if readable(p, roots)) if record.kind == "train" else ()
    shown = readable(record.log, roots)
    launcher = record.log if shown else ""  # which rank it names as failed
    failing = failing_workers(launcher, workers, record.log_offsets) if record.status.is_failure else ()
    broken = failing[0] if failing else None
    return StageView(
        anchor=anchor,
        id=record.id,
        name=stage_name(record),
        kind=record.kind,
        status=record.status.value,
        node=node_label(record.node_rank, record.host) if multi else "",
        command=command_text(record.argv),
        cwd=record.cwd,
        env=_env(record.env),
        duration=record.duration,
        returncode=record.returncode,
        reason=record.reason or record.flaky_note,
        metrics=_metrics(record.metrics),
        log=log_tail(
            record.log,
            report_dir,
            short=record.status is Status.PASSED,
            since=offset_of(record, record.log) if record.log else 0,
        )
        if shown
        else LogTail(missing=OUTSIDE),
        worker_logs=tuple(Link(file_link(p, report_dir), p.name) for p in workers),
        worker_tail=None
        if broken is None
        else log_tail(str(broken), report_dir, label=f"failing rank: {broken.name}", since=offset_of(record, broken)),
        # An earlier run's failure is there to read, not to draw the eye from this run's.
        open=record.status.is_failure and not carried,
        carried=carried,
        cause=f"{record.cause_kind}: {record.cause}" if record.cause else "",
        state="" if carried else state_text(record),
    )


def each_stage_group(
    records: Iterable[StageRecord],
    stage_anchors: Mapping[StageKey, str],
    row_anchors: Mapping[RowKey, str],
    sizes: Mapping[RowKey, int],
    report_dir: Path,
    multi: bool,
    run_ids: RunIds | None = None,
    roots: Roots = None,
) -> Iterator[StageGroup]:
    """The groups one at a time, each as soon as its chain's last record (of ``sizes[key]``) is read:
    a report holds the records of the chains still being read (those a run ran side by side), not the
    run's, and one chain's log ends at a time."""
    reading: dict[RowKey, list[StageRecord]] = {}
    for r in records:
        key = row_key(r)
        rows = reading.setdefault(key, [])
        rows.append(r)
        if len(rows) < sizes.get(key, 0):
            continue
        del reading[key]
        yield StageGroup(
            anchor=row_anchors[key],
            title=key[0],
            node=node_label(key[1], rows[0].host) if multi else "",
            stages=tuple(
                stage_view(r, stage_anchors[stage_key(r)], report_dir, multi, carried_note(r, run_ids or {}), roots)
                for r in rows
            ),
        )
