"""The matrix report's view model: one row per config of a run, built from what each config left.

A run over many configs (a directory, ``--tags``) gets one page besides its per-folder reports:
per config its verdict, how long it took, the figures people look for first (train ips, the
eval metric, inference time at the smallest and the largest batch), how it did the night before,
how many of its figures regressed, and, for a config that could not be planned, why. Pure: records in, rows out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tipc.history.matrix import Earlier, HistoryKey
from tipc.history.store import VERDICTS
from tipc.metrics.causes import CauseGroup, failure_of, group
from tipc.report.figures import number
from tipc.report.logtail import file_link
from tipc.report.perf import perf_row, series_label
from tipc.results.records import StageRecord, Status, run_verdict

ERROR, NOT_APPLICABLE = VERDICTS[0], VERDICTS[-1]
# A config's eval metric, by the names the suites' metrics use for their main figure (recognition and tables:
# acc; text detection and SER: hmean; super-resolution: psnr; classification: top1; object detection: mAP, else
# AP50; segmentation: mIoU); else its first.
MAIN_METRICS = ("acc", "hmean", "psnr", "top1", "mAP", "AP50", "mIoU")


@dataclass(frozen=True, slots=True)
class ConfigOutcome:
    """One config of a run, as the matrix report sees it."""

    config: str  # as node ids spell it
    mode: str
    tags: tuple[str, ...] = ()
    model: str = ""  # "" when it could not be planned
    records: tuple[StageRecord, ...] = ()  # this run's records of this config's stages
    report: Path | None = None  # the report page of its results folder
    problem: str = ""  # why it has no stages: an error, or what would run it
    applicable: bool = True  # False: not applicable here (``problem`` says how it would run)
    regressions: int = 0  # its figures that left their noise band (its report lists them first)
    suite: str = ""  # the dialect that read it (tipc.suites); "" when unknown


@dataclass(frozen=True, slots=True)
class Batch:
    size: float
    inference_ms: float


@dataclass(frozen=True, slots=True)
class OverviewRow:
    config: str
    model: str
    mode: str
    tags: tuple[str, ...]
    verdict: str  # one of VERDICTS
    counts: tuple[tuple[str, int], ...]  # statuses present, in Status order
    duration: float | None  # first stage's start to last stage's end; None without stages
    train_ips: float | None
    eval_metric: tuple[str, float] | None
    smallest: Batch | None  # inference at the smallest batch of the first benchmarked series
    largest: Batch | None  # ... and at its largest (None when it has one batch size)
    href: str  # the config's report, relative to the matrix page; "" when there is none
    problem: str
    previous: Earlier | None
    new_failures: tuple[str, ...]  # stages failing now that did not fail in ``previous``
    failures: tuple[str, ...]  # stages failing now (what the next run compares with)
    causes: tuple[str, ...] = ()  # the signatures of their causes, once each (what the next run tells "since" by)
    regressions: int = 0  # figures outside their noise band over the config's earlier runs
    suite: str = ""  # the dialect that read it


@dataclass(frozen=True, slots=True)
class OverviewPage:
    title: str
    run_id: str
    generated: str
    modes: tuple[str, ...]
    overall: str  # the worst row verdict, "empty" without rows
    verdicts: tuple[tuple[str, int], ...]  # rows per verdict, in VERDICTS order, present ones
    duration: float | None
    rows: tuple[OverviewRow, ...]
    causes: tuple[CauseGroup, ...] = ()  # the failures grouped by cause, the largest group first
    cause_history: bool = False  # earlier runs' causes were read: groups say new or since when


def verdict(outcome: ConfigOutcome) -> str:
    if outcome.problem:
        return ERROR if outcome.applicable else NOT_APPLICABLE
    return run_verdict(r.status for r in outcome.records)


def span(records: Sequence[StageRecord]) -> float | None:
    timed = [r for r in records if r.start]
    if not timed:
        return None
    return max(r.start + r.duration for r in timed) - min(r.start for r in timed)


def train_ips(records: Sequence[StageRecord]) -> float | None:
    """The first train stage's ips that was logged (a failed train may still have logged some)."""
    return next((v for r in records if r.kind == "train" and (v := number(r.metrics.get("ips"))) is not None), None)


def eval_metric(records: Sequence[StageRecord]) -> tuple[str, float] | None:
    for r in records:
        if r.kind != "eval":
            continue
        values = {k: number(v) for k, v in r.metrics.items()}
        figures = {k: v for k, v in values.items() if v is not None}
        name = next((k for k in MAIN_METRICS if k in figures), next(iter(figures), None))
        if name is not None:
            return name, figures[name]
    return None


def batches(records: Sequence[StageRecord]) -> tuple[Batch | None, Batch | None]:
    """Smallest and largest batch of one sweep series: the first benchmarked infer stage's chain and
    settings (device, precision, threads…), so that the two figures differ by batch size alone."""
    series: dict[str, list[Batch]] = {}
    for r in (r for r in records if r.kind == "infer"):
        row = perf_row(r, "", "")
        if row.batch_size is not None and row.inference_ms is not None:
            series.setdefault(series_label(row, True, False), []).append(Batch(row.batch_size, row.inference_ms))
    first = next(iter(series.values()), [])
    if not first:
        return None, None
    small, large = min(first, key=lambda b: b.size), max(first, key=lambda b: b.size)
    return small, (large if large.size != small.size else None)


def failures(records: Sequence[StageRecord]) -> tuple[str, ...]:
    return tuple(r.id for r in records if r.status.is_failure)


def counts(records: Sequence[StageRecord]) -> tuple[tuple[str, int], ...]:
    present = [r.status for r in records]
    return tuple((s.value, present.count(s)) for s in Status if s in present)


def build_row(outcome: ConfigOutcome, page_dir: Path, previous: Earlier | None) -> OverviewRow:
    records = outcome.records
    failing = failures(records)
    smallest, largest = batches(records)
    return OverviewRow(
        config=outcome.config,
        model=outcome.model,
        mode=outcome.mode,
        tags=outcome.tags,
        verdict=verdict(outcome),
        counts=counts(records),
        duration=span(records),
        train_ips=train_ips(records),
        eval_metric=eval_metric(records),
        smallest=smallest,
        largest=largest,
        href=file_link(outcome.report, page_dir) if outcome.report else "",
        problem=outcome.problem,
        previous=previous,
        new_failures=tuple(f for f in failing if previous is not None and f not in previous.failures),
        failures=failing,
        causes=tuple(dict.fromkeys(r.cause for r in records if r.status.is_failure and r.cause)),
        regressions=outcome.regressions,
        suite=outcome.suite,
    )


def overall(verdicts: Sequence[str]) -> str:
    """The worst verdict among the configs that could run here (not applicable ones tell nothing)."""
    told = [v for v in verdicts if v != NOT_APPLICABLE]
    return min(told, key=VERDICTS.index) if told else "empty"


def build_page(
    run_id: str,
    outcomes: Sequence[ConfigOutcome],
    page_dir: Path,
    history: Mapping[HistoryKey, Earlier],
    generated: str = "",
    cause_history: Sequence[tuple[str, frozenset[str]]] = (),
) -> OverviewPage:
    """``history``: each config's latest earlier run, by (config, mode); ``cause_history``: the
    signatures of each earlier run's failures, oldest first (``tipc.metrics.causes.group``)."""
    rows = tuple(build_row(o, page_dir, history.get((o.config, o.mode))) for o in outcomes)
    failed = (failure_of(o.config, r) for o in outcomes for r in o.records if r.status.is_failure)
    present = [row.verdict for row in rows]
    modes = tuple(dict.fromkeys(row.mode for row in rows))
    return OverviewPage(
        title=f"tipc matrix · {', '.join(modes)}",
        run_id=run_id,
        generated=generated,
        modes=modes,
        overall=overall(present),
        verdicts=tuple((v, present.count(v)) for v in VERDICTS if v in present),
        duration=span([r for o in outcomes for r in o.records]),
        rows=rows,
        causes=tuple(group(failed, cause_history)),
        cause_history=bool(cause_history),
    )
