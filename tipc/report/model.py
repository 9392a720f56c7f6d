"""The report's view model: everything the template shows, already decided.

Built from records by pure functions (``tipc.report.build`` and friends); the
template only lays it out. Numbers stay numbers (formatted by a template filter)
so tests can check values, not strings.

Records carried over from an earlier run (``tipc.report.load``) are shown, and say so
(``carried``), but the verdict, the counts and the figures are this run's alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tipc.report.predictions import PredictionsView
from tipc.report.svg import Plot

if TYPE_CHECKING:  # their own modules build them, and import this one
    from tipc.report.states import StatesView
    from tipc.report.trainbench import TrainBenchmark
    from tipc.report.trends import Trends
    from tipc.run.criteria import Criteria

Pairs = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Link:
    href: str
    text: str


@dataclass(frozen=True, slots=True)
class LogTail:
    label: str = "log"
    text: str = ""
    truncated: bool = False
    link: Link | None = None
    missing: str = ""  # why there is no text


@dataclass(frozen=True, slots=True)
class NodeInfo:
    rank: int
    host: str
    device: str
    paddle_version: str
    python_version: str
    start: str
    duration: float


@dataclass(frozen=True, slots=True)
class Header:
    model: str
    mode: str
    run_id: str  # "" for results from before run ids
    config: str
    config_sha256: str
    overrides: Pairs
    tipc_version: str
    paddle_version: str
    python: str
    python_version: str
    device: str
    host: str  # the node that ran it; multi-node runs list theirs in ``nodes``
    nodes: tuple[NodeInfo, ...]
    start: str
    duration: float
    notes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Tally:
    """This run's records only; the carried-over ones are counted apart."""

    counts: tuple[tuple[str, int], ...]  # every Status value, in Status order
    total: int
    overall: str  # a tipc.results.outcome.Outcome value: passed, failed, incomplete, regressed or empty
    carried: tuple[tuple[str, int], ...] = ()  # carried-over records by status, only statuses present

    @property
    def carried_total(self) -> int:
        return sum(n for _, n in self.carried)


@dataclass(frozen=True, slots=True)
class Column:
    key: str  # the stage name: "train", "infer[<label>]"...
    parts: tuple[str, ...]  # header text, one part per line
    title: str


@dataclass(frozen=True, slots=True)
class Cell:
    status: str  # a Status value, or "none" when the chain has no such stage
    text: str
    note: str  # the short why shown under the status (blocked/skipped)
    title: str
    anchor: str  # "" when there is nothing to link to
    carried: str = ""  # "from earlier run <id>" for a record carried over, "" for this run's
    state: str = ""  # its cell's state across nights (a tipc.triage.states.State value), "" unknown


@dataclass(frozen=True, slots=True)
class MatrixRow:
    label: str
    node: str  # "" on single-node runs
    anchor: str  # the group of stage details for this row
    cells: tuple[Cell, ...]


@dataclass(frozen=True, slots=True)
class Matrix:
    columns: tuple[Column, ...]
    rows: Sequence[MatrixRow]  # a large report's are read back from its scratch file when shown
    show_node: bool


@dataclass(frozen=True, slots=True)
class StageView:
    anchor: str
    id: str
    name: str
    kind: str
    status: str
    node: str
    command: str
    cwd: str
    env: tuple[tuple[str, str], ...]
    duration: float
    returncode: int | None
    reason: str
    metrics: Pairs
    log: LogTail
    worker_logs: tuple[Link, ...]
    worker_tail: LogTail | None
    open: bool
    carried: str = ""  # "from earlier run <id>" for a record carried over, "" for this run's
    cause: str = ""  # a failure's cause: "missing-module: ModuleNotFoundError: No module named 'x'"
    state: str = ""  # its cell's state across nights: "new failure", "still failing: 3 nights, since <run>"


@dataclass(frozen=True, slots=True)
class StageGroup:
    anchor: str
    title: str
    node: str
    stages: tuple[StageView, ...]


@dataclass(frozen=True, slots=True)
class PerfRow:
    anchor: str
    status: str
    node: str
    chain: str
    device: str
    threads: str
    mkldnn: str
    trt: str
    precision: str
    batch_size: float | None
    preprocess_ms: float | None
    inference_ms: float | None
    postprocess_ms: float | None
    total_s: float | None
    throughput: float | None
    cpu_rss_mb: float | None
    gpu_rss_mb: float | None


@dataclass(frozen=True, slots=True)
class TrainRow:
    anchor: str
    status: str
    chain: str
    node: str
    ips: float | None
    loss: float | None
    steps: float | None
    duration: float


@dataclass(frozen=True, slots=True)
class EvalRow:
    anchor: str
    status: str
    chain: str
    node: str
    values: tuple[float | None, ...]  # in EvalTable.columns order


@dataclass(frozen=True, slots=True)
class EvalTable:
    columns: tuple[str, ...]
    rows: tuple[EvalRow, ...]


@dataclass(frozen=True, slots=True)
class SpeedupRow:
    trainer: str
    autocast: str
    multi_chain: str
    multi_anchor: str
    nodes: int
    multi_ips: float
    single_chain: str
    single_anchor: str
    single_ips: float
    speedup: float


@dataclass(frozen=True, slots=True)
class PlotGroup:
    title: str  # the chain whose inference sweep is plotted
    plots: tuple[Plot, ...]


@dataclass(frozen=True, slots=True)
class Performance:
    rows: Sequence[PerfRow]  # as the matrix's rows
    plots: tuple[PlotGroup, ...]
    plots_omitted: int  # chains with benchmark figures but no plots (only the table)
    train: tuple[TrainRow, ...]
    eval: EvalTable
    speedups: tuple[SpeedupRow, ...]
    show_node: bool


@dataclass(frozen=True, slots=True)
class StageChange:
    label: str
    anchor: str  # "" when the stage is not in this run
    before: str  # status, "" when absent
    after: str
    reason: str


@dataclass(frozen=True, slots=True)
class FigureMove:
    label: str
    anchor: str
    figure: str
    unit: str
    before: float
    after: float
    change: float  # relative, +0.12 = 12% up
    better: bool


@dataclass(frozen=True, slots=True)
class NotCompared:
    """A stage whose figures exist but are no result: it did not pass in one of the two runs."""

    label: str
    anchor: str
    why: str  # "not compared: failed in this run"


@dataclass(frozen=True, slots=True)
class Comparison:
    against: str  # what we compare with, for the heading
    against_href: str  # link to its report, "" when it has none
    threshold: float
    new_failures: tuple[StageChange, ...]
    fixed: tuple[StageChange, ...]
    still_failing: tuple[StageChange, ...]
    moves: tuple[FigureMove, ...]
    not_compared: tuple[NotCompared, ...] = ()  # figures of a stage that did not pass in one run


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    name: str  # the run id, or the start time of results from before run ids
    href: str
    overall: str
    counts: tuple[tuple[str, int], ...]
    config: str  # "" when its summary predates configs


@dataclass(frozen=True, slots=True)
class Pages:
    """Where a report of many pages (``tipc.report.pages``) keeps each part: the page a reader opens
    first stays small, each chain's stage details and each page of the matrix are pages of their own."""

    links: Mapping[str, str] = field(default_factory=dict)  # stage or chain anchor → its chain page
    matrix_pages: int = 0  # how many pages the whole matrix takes
    total_rows: int = 0  # the matrix's rows, all pages together
    current: int = 0  # the matrix page shown (from 1), 0 on other pages
    up: str = ""  # from this page to the report's folder: "../" on a chain page


@dataclass(frozen=True, slots=True)
class ReportModel:
    title: str
    generated: str
    header: Header
    tally: Tally
    comparison: Comparison | None
    matrix: Matrix
    groups: tuple[StageGroup, ...]
    performance: Performance
    history: tuple[HistoryEntry, ...] = ()
    train_benchmark: TrainBenchmark | None = None  # benchmark_train runs (tipc.report.trainbench)
    predictions: PredictionsView | None = None  # tipc.report.predictions
    trends: Trends | None = None  # None: no trend history asked for (tipc.report.trends)
    criteria: Criteria | None = None  # what the verdict rests on, shown beside it (tipc.run.criteria)
    # (title, plain text) from plugins' pytest_tipc_report_sections (tipc.suites.hookspecs), shown as written
    sections: tuple[tuple[str, str], ...] = ()
    # "all": the whole report on one page; a report of many pages (``pages``) is "index", "matrix",
    # "figures" or "chain" on each of its pages
    part: str = "all"
    pages: Pages | None = None
    states: StatesView | None = None  # this run's cells by state across nights (tipc.report.states)
