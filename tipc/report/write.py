"""``write_report``: results directories → ``<out>/<model>/<mode>/<run id>/index.html``.

Layout of the reports tree::

    <out_root>/<model>/<mode>/
        20261201T013000Z-5f3a9c1e/index.html    one directory per run, named by its run id
        20261201T013000Z-5f3a9c1e/train_benchmark.json  benchmark_train: every run's speed and speedup
        20261130T023448Z/index.html             results from before run ids: their UTC start time
        latest -> 20261201T013000Z-5f3a9c1e     relative symlink, replaced atomically
        latest.html                             redirect page: works where symlinks do not

Run ids sort by start time and are unique, so two runs in the same second get two
directories and no run's report ever replaces another's. Both pointers are always
written (the symlink only where the filesystem allows it), so ``latest/index.html`` and
``latest.html`` are stable addresses to bookmark. Re-rendering the same run overwrites
its directory. The baseline is the newest *earlier* run of the same config, chosen by
the run ids in the summaries, never by folder names or times. Those summaries, like the trends,
live in the history store (``tipc.history.store``), and nowhere else: a report folder keeps its
pages alone, deleting report folders loses no history, and a report folder's ``summary.json`` from
before the store is read into it once.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from tipc.errors import OutputError, ResultsError, UsageError
from tipc.files.write import scratch_file, under, write_atomic, writing
from tipc.history.changes import REPORTED
from tipc.history.keys import config_key
from tipc.history.legacy import SUMMARY_FILE, TREND_FILE, read_summary
from tipc.history.reports import as_stored, past_reports, record_run, stage_times, summary_of
from tipc.history.store import HISTORY_FILE, history_file
from tipc.history.summaries import PastRun, RunSummary, previous_run
from tipc.metrics.noise import DEFAULT_RUNS, TrendPolicy
from tipc.report.build import (
    Anchoring,
    Anchors,
    all_records,
    build_report,
    chain_groups,
    format_time,
    head_info,
    run_span,
    tapped,
    this_run,
)
from tipc.report.compare import DEFAULT_THRESHOLD, kind_of, not_compared_why, summarize
from tipc.report.compare import compare as compare_runs
from tipc.report.figures import run_figures
from tipc.report.load import NodeRun, load_runs, run_ids
from tipc.report.logtail import file_link
from tipc.report.model import Comparison, HistoryEntry
from tipc.report.pages import CHAINS, is_paged, page_links, write_pages
from tipc.report.render import render, render_pieces, render_redirect
from tipc.report.spill import Scratch
from tipc.report.trainbench import TRAIN_BENCHMARK_FILE, train_benchmark_json
from tipc.report.trends import Regression, Trends, build_trends
from tipc.results.folder import RECORDS, RUN_INFO, Warn, has_results, portable_root
from tipc.results.outcome import Outcome, outcome_of
from tipc.results.records import StageRecord, Status
from tipc.run.criteria import Criteria
from tipc.suites.registry import report_sections

INDEX = "index.html"
LATEST = "latest"
HISTORY_LINKS = 12
DEFAULT_TRENDS = TrendPolicy()


@dataclass(frozen=True, slots=True)
class Baseline:
    summary: RunSummary
    label: str
    index: Path | None  # the baseline's report page, when it has one


def run_timestamp(start: float) -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(start or time.time()))


def report_mode_dir(out_root: Path, model: str, mode: str) -> Path:
    """Where the reports of one model and mode go: ``<out_root>/<model>/<mode>/``, each name made one
    safe component by the write door (models named ``.``, ``..`` or ``模型`` get folders of their own)."""
    return under(out_root, model, mode)


def run_report_dir(out_root: Path, model: str, mode: str, run_id: str) -> Path:
    """The folder of one run's report."""
    return under(out_root, model, mode, run_id)


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr)


def summarize_runs(runs: Sequence[NodeRun], *taps: Callable[[StageRecord], object]) -> RunSummary:
    """The run's summary; ``taps`` see each record as the summary reads it."""
    head = head_info(runs)
    return summarize(
        head.model,
        head.mode,
        run_timestamp(run_span(runs)[0]),
        tapped(all_records(runs), *taps),
        run_id=head.run_id,
        config=config_key(head.config) if head.config else "",
        run_ids=run_ids(runs),
        target_commit=head.target_commit,
    )


def summary_and_anchors(runs: Sequence[NodeRun]) -> tuple[RunSummary, Anchors]:
    """The run's summary and every stage's and chain's anchor, from one reading of its records."""
    anchoring = Anchoring(len(all_records(runs).ranks) > 1)
    summary = summarize_runs(runs, anchoring.add)
    return summary, anchoring.anchors()


def _baseline_from(path: Path, runs: Sequence[NodeRun], mode_dir: Path, store: Path | None, warn: Warn) -> Baseline:
    """``--compare``: a results dir (its ``run.json`` names its run), a report dir (named by its run, of
    the model and mode of ``runs``) or a mode dir (its ``latest``). That run's summary in the history
    store of ``runs`` or its own (for a report dir, the one beside it), else its results read, else
    the ``summary.json`` an older tipc left beside the report. A summary that does not read is an
    error here: the user asked for this one."""
    path, own, current = Path(path), store_of(runs, mode_dir, store), head_info(runs)
    if (path / LATEST).is_dir():
        path = path / LATEST
    if has_results(path):
        theirs = load_runs([path])
        read = summarize_runs(theirs)
        stored = summary_of((own, store_of(theirs, mode_dir, store)), read.model, read.mode, read.order, warn)
        return Baseline(stored or read, f"{read.order} ({path})", None)
    run = path.resolve().name  # latest: the run it points at
    summary = summary_of((own, path.parent / HISTORY_FILE), current.model, current.mode, run, warn)
    if summary is None and (path / SUMMARY_FILE).exists():
        summary = read_summary(path / SUMMARY_FILE)
    if summary is None:
        raise ResultsError(
            str(path),
            0,
            f"cannot compare with it: expected a results directory holding {RECORDS}, or a report directory "
            f"of {current.model} {current.mode} whose run the history store keeps (a report written with "
            "--no-history is not kept: give its results directory)",
        )
    index = path / INDEX
    return Baseline(summary, summary.order or run, index if index.is_file() else None)


def _comparison(
    baseline: Baseline | None, current: RunSummary, anchors: Anchors, report_dir: Path, threshold: float
) -> Comparison | None:
    if baseline is None:
        return None
    href = file_link(baseline.index, report_dir) if baseline.index else ""
    return compare_runs(
        baseline.summary, current, anchors.stages, against=baseline.label, against_href=href, threshold=threshold
    )


def _from_history(past: PastRun | None) -> Baseline | None:
    if past is None:
        return None
    index = past.dir / INDEX
    return Baseline(past.summary, past.summary.order or past.dir.name, index if index.is_file() else None)


def _history_links(history: Sequence[PastRun]) -> tuple[HistoryEntry, ...]:
    """The earlier runs, each linked to its page while that page is there (the store outlives pages)."""
    return tuple(
        HistoryEntry(
            p.summary.order or p.dir.name,
            f"../{p.dir.name}/{INDEX}" if (p.dir / INDEX).is_file() else "",
            p.summary.verdict(),
            tuple(p.summary.counts().items()),
            p.summary.config,
        )
        for p in history[:HISTORY_LINKS]
    )


def store_of(runs: Sequence[NodeRun], mode_dir: Path, given: Path | None = None) -> Path:
    """The history store of ``runs``, whose report goes to ``mode_dir`` (``given``: the history setting)."""
    head = head_info(runs)
    return history_file(portable_root(runs[0].source), head.model, head.mode, mode_dir, given)


def _remember(
    mode_dir: Path,
    runs: Sequence[NodeRun],
    summary: RunSummary,
    anchors: Anchors,
    imported: Sequence[PastRun],
    policy: TrendPolicy | None,
    warn: Warn,
    record: bool = True,
    store: Path | None = None,
) -> Trends | None:
    """This run's figures and summary into the history store (beside the results:
    ``tipc.history.store``), with ``imported`` (earlier reports' summaries the store did not have
    yet), in one transaction; then, with a ``policy``, each figure against its earlier runs.
    The history keeps at least the default window, so a night with a short ``--trend-runs``
    does not forget what longer windows read. One shard's report (``--shard``) is judged but not
    recorded: the merged run's report records every shard's figures, under its own run id."""
    ids = run_ids(runs)
    records = all_records(runs)
    current = run_figures(summary.order, this_run(records, ids))
    head = head_info(runs)
    one_shard = bool(head.shard) and len({shard for _, shard in records.newest}) == 1
    keep = max(policy.runs if policy else 0, DEFAULT_RUNS) + REPORTED  # a shift's night and the window before it
    reports = as_stored([*imported, PastRun(mode_dir / summary.order, summary)])
    times = stage_times(this_run(records, ids))
    history = record_run(
        store_of(runs, mode_dir, store), mode_dir / TREND_FILE, head.model, head.mode, current, times,
        keep, warn, write=record and not one_shard, reports=reports,
    )  # fmt: skip
    if policy is None:
        return None
    unjudged = {
        s.key: not_compared_why(Status.PASSED.value, s.status, kind_of(s.id))
        for s in summary.own
        if s.status != Status.PASSED.value
    }
    return build_trends(current, history, anchors.stages, policy, unjudged)


def _note_compared(runs: Sequence[NodeRun], run_id: str, warn: Warn) -> None:
    """Each results folder's ``run.json`` names the earlier night its report compared with; its
    ``folder`` stays where the records were written (their paths are relative to it)."""
    for run in runs:
        if run.info.compared_with == run_id:
            continue
        try:
            write_atomic(run.source / RUN_INFO, replace(run.info, compared_with=run_id).to_json() + "\n")
        except (OSError, OutputError) as exc:  # a read-only results folder: the page still says it
            warn(f"tipc: {run.source / RUN_INFO} does not name the night compared with ({exc})")


def night_trends(
    runs: Sequence[NodeRun], mode_dir: Path, policy: TrendPolicy, warn: Warn, store: Path | None = None
) -> Trends | None:
    """The trends of a night's ``runs`` against the history, which is read, not written (``mode_dir``: where
    their report goes; ``store``: the history setting)."""
    summary, anchors = summary_and_anchors(runs)
    return _remember(mode_dir, runs, summary, anchors, (), policy, warn, record=False, store=store)


def judge_night(
    results_dirs: Sequence[Path], policy: TrendPolicy, fail_on_regression: bool, warn: Warn, store: Path | None = None
) -> tuple[Outcome, int]:
    """A night's outcome and how many figures regressed, judged against the history without writing
    anything (``tipc merge``: the report that follows records the night)."""
    runs = load_runs([Path(p) for p in results_dirs], warn)
    summary, anchors = summary_and_anchors(runs)
    trend = _remember(Path(results_dirs[0]), runs, summary, anchors, (), policy, warn, record=False, store=store)
    found = len(trend.regressions) if trend is not None else 0
    own = (s.status for s in summary.own)
    return outcome_of(own, regressions=found, fail_on_regression=fail_on_regression), found


def update_latest(mode_dir: Path, name: str, title: str) -> None:
    link = mode_dir / LATEST
    tmp = mode_dir / f".{LATEST}.{os.getpid()}.tmp"
    try:
        if tmp.is_symlink():
            tmp.unlink()
        tmp.symlink_to(name, target_is_directory=True)
        os.replace(tmp, link)
    except OSError:
        pass  # no symlinks here (some network/Windows filesystems): latest.html still points the way
    write_atomic(mode_dir / f"{LATEST}.html", render_redirect(f"{name}/{INDEX}", title))


def write_report(
    results_dirs: Sequence[Path],
    out_root: Path,
    compare: Path | None = None,
    *,
    history: bool = True,
    threshold: float = DEFAULT_THRESHOLD,
    warn: Warn | None = None,
    trends: TrendPolicy | None = DEFAULT_TRENDS,
    regression: Callable[[Regression], None] | None = None,
    criteria: Callable[[Criteria], None] | None = None,
    fail_on_regression: bool = False,
    outcome: Callable[[Outcome], None] | None = None,
    store: Path | None = None,
) -> Path:
    """Render one run (one results dir per node) and return the path of its ``index.html``.

    ``compare`` is a previous report or results directory; without it (and with
    ``history``) the newest earlier run of the same config and mode is the baseline.
    ``warn`` hears of history entries skipped as bad (stderr without it) and, only when given, of
    bad record lines skipped (without it they stop the report).
    ``trends`` (with ``history``): record this run's figures in the trend history and judge each
    against its earlier runs; ``regression`` hears of every figure that left its noise band.
    ``criteria`` hears what the page's verdict rests on (the console says it too).
    ``fail_on_regression``: a regression fails the run (``--fail-on regression``), and the page's
    badge says so; ``outcome`` hears that badge (``tipc report``'s exit status: one table).
    ``store``: the history store the ``history`` setting names (None: ``history_file``'s choice).
    """
    runs: tuple[NodeRun, ...] = load_runs([Path(p) for p in results_dirs], warn)
    summary, anchors = summary_and_anchors(runs)
    records = all_records(runs)
    # Results from before run ids are named by their start second, as reports always were.
    mode_dir = report_mode_dir(out_root, summary.model, summary.mode)
    run_dir = run_report_dir(out_root, summary.model, summary.mode, summary.run_id) if summary.run_id else None
    report_dir = run_dir or mode_dir / summary.timestamp
    name = report_dir.name
    if Path(out_root).exists() and not Path(out_root).is_dir():
        raise UsageError(f"--out {out_root}: is a file; expected the folder that holds the reports")
    with writing(report_dir):
        report_dir.mkdir(parents=True, exist_ok=True)

    say = warn or _to_stderr
    past: tuple[PastRun, ...] = ()
    imported: tuple[PastRun, ...] = ()
    if history:
        past, imported = past_reports(store_of(runs, mode_dir, store), mode_dir, summary.model, summary.mode, name, say)
    baseline = (
        _baseline_from(Path(compare), runs, mode_dir, store, say)
        if compare is not None
        else _from_history(previous_run(past, summary))
    )
    if baseline is not None and baseline.summary.run_id:
        _note_compared(runs, baseline.summary.run_id, say)
    trend = _remember(mode_dir, runs, summary, anchors, imported, trends, say, store=store) if history else None
    if trend is not None and regression is not None:
        for found in trend.regressions:
            regression(found)
    paged = is_paged(len(records))
    # A large report's matrix rows and figures rows wait for their pages in a file, not in memory.
    with contextlib.ExitStack() as stack:
        scratch = Scratch(stack.enter_context(scratch_file(report_dir)), report_dir) if paged else None
        model = build_report(
            runs,
            report_dir,
            anchors,
            summary,
            comparison=_comparison(baseline, summary, anchors, report_dir, threshold),
            history=_history_links(past),
            generated=format_time(time.time()),
            trends=trend,
            paged=paged,
            scratch=scratch,
        )
        if criteria is not None and model.criteria is not None:
            criteria(model.criteria)
        badge = outcome_of(
            (s.status for s in summary.own),
            regressions=len(trend.regressions) if trend is not None else 0,
            fail_on_regression=fail_on_regression,
        )
        model = replace(model, tally=replace(model.tally, overall=badge.value))
        if outcome is not None:
            outcome(Outcome(model.tally.overall))
        sections = tuple(s for results in results_dirs for s in report_sections(Path(results)))
        if sections:
            model = replace(model, sections=sections)
        index = report_dir / INDEX
        if paged:
            groups = chain_groups(runs, report_dir / CHAINS, anchors)  # their links start from chains/
            write_pages(index, model, page_links(anchors), groups, render_pieces)
        else:
            write_atomic(index, render(model))
    if model.train_benchmark:
        write_atomic(report_dir / TRAIN_BENCHMARK_FILE, train_benchmark_json(model.train_benchmark))
    update_latest(mode_dir, name, model.title)
    return index
