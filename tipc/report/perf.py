"""Performance views: the inference benchmark table and plots, train ips, eval metrics, speedups."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from tipc.history.store import StageKey
from tipc.report.figures import batch_size, number, throughput
from tipc.report.model import EvalRow, EvalTable, Performance, PerfRow, PlotGroup, SpeedupRow, TrainRow
from tipc.report.naming import argv_option, chain_parts, node_label, stage_key
from tipc.report.spill import Scratch, Spill, flat
from tipc.report.svg import line_plot
from tipc.results.records import StageRecord, Status

MAX_PLOTTED_CHAINS = 6


def _text(value: object) -> str:
    return "" if value is None else str(value)


def _case(record: StageRecord, metric: str, case_field: str) -> str:
    """A sweep setting, as the predictor reported it, else as the plan asked for it."""
    value = record.metrics.get(metric)
    if value is None and record.infer:
        value = record.infer.get(case_field)
    return _text(value)


def perf_row(record: StageRecord, anchor: str, node: str) -> PerfRow:
    m = record.metrics
    return PerfRow(
        anchor=anchor,
        status=record.status.value,
        node=node,
        chain=record.chain,
        device=_case(record, "runtime_device", "device"),
        threads=_case(record, "cpu_threads", "cpu_threads"),
        mkldnn=_case(record, "enable_mkldnn", "enable_mkldnn"),
        trt=_case(record, "enable_tensorrt", "use_tensorrt"),
        precision=_case(record, "precision", "precision"),
        batch_size=batch_size(record),
        preprocess_ms=number(m.get("preprocess_ms")),
        inference_ms=number(m.get("inference_ms")),
        postprocess_ms=number(m.get("postprocess_ms")),
        total_s=number(m.get("total_s")),
        throughput=throughput(record),
        cpu_rss_mb=number(m.get("cpu_rss_mb")),
        gpu_rss_mb=number(m.get("gpu_rss_mb")),
    )


def series_label(row: PerfRow, with_chain: bool, with_node: bool) -> str:
    """The sweep settings that tell one line from another (each device has its own knobs)."""
    parts = [row.chain] if with_chain else []
    parts += [row.device or "?", row.precision or "?"]
    if row.device == "gpu":
        parts.append(f"trt={row.trt or '?'}")
    else:
        parts += [f"mkldnn={row.mkldnn or '?'}", f"threads={row.threads or '?'}"]
    if with_node:
        parts.append(row.node)
    return " ".join(parts)


def chain_plots(index: int, chain: str, rows: Sequence[PerfRow]) -> PlotGroup:
    """Inference time and throughput against batch size, one line per device/precision series."""
    with_node = len({r.node for r in rows}) > 1
    time_series: dict[str, list[tuple[float, float]]] = {}
    tput_series: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        x, y = r.batch_size, r.inference_ms
        assert x is not None and y is not None  # Plotted keeps only rows with both
        label = series_label(r, False, with_node)
        time_series.setdefault(label, []).append((x, y))
        if r.throughput is not None:
            tput_series.setdefault(label, []).append((x, r.throughput))
    return PlotGroup(
        chain,
        (
            line_plot(
                f"plot-{index}-inference-ms",
                "Inference time per batch",
                "batch size",
                "inference (ms)",
                "ms",
                list(time_series.items()),
                integer_x=True,
            ),
            line_plot(
                f"plot-{index}-throughput",
                "Throughput",
                "batch size",
                "throughput (samples/s)",
                "samples/s",
                list(tput_series.items()),
                integer_x=True,
            ),
        ),
    )


class Plotted:
    """One pair of plots per chain (a chain is one trained model), at most MAX_PLOTTED_CHAINS, gathered one
    row at a time; the chains left out so the page stays readable are only counted."""

    def __init__(self) -> None:
        self.by_chain: dict[str, list[PerfRow]] = {}
        self.left_out: set[str] = set()

    def add(self, r: PerfRow) -> None:
        if r.batch_size is None or r.inference_ms is None:
            return
        if r.chain in self.by_chain or len(self.by_chain) < MAX_PLOTTED_CHAINS:
            self.by_chain.setdefault(r.chain, []).append(r)
        else:
            self.left_out.add(r.chain)

    def plots(self) -> tuple[tuple[PlotGroup, ...], int]:
        groups = tuple(chain_plots(i, chain, rs) for i, (chain, rs) in enumerate(self.by_chain.items(), 1))
        return groups, len(self.left_out)


def eval_table(records: Sequence[StageRecord], anchors: Mapping[StageKey, str], multi: bool) -> EvalTable:
    evals = [r for r in records if r.kind == "eval"]
    cols = tuple(dict.fromkeys(k for r in evals for k, v in r.metrics.items() if number(v) is not None))
    rows = tuple(
        EvalRow(
            anchors[stage_key(r)],
            r.status.value,
            r.chain,
            node_label(r.node_rank, r.host) if multi else "",
            tuple(number(r.metrics.get(c)) for c in cols),
        )
        for r in evals
    )
    return EvalTable(cols, rows)


def launch_nodes(train: StageRecord) -> int:
    """How many nodes a train stage spans: the host count of its launch ``--ips``, else 1."""
    ips = argv_option(train.argv, "--ips")
    return 1 if ips is None else max(1, len([h for h in ips.split(",") if h.strip()]))


def speedups(trains: Sequence[StageRecord], anchors: Mapping[StageKey, str]) -> tuple[SpeedupRow, ...]:
    """Multi-node chains against single-node chains with the same trainer and autocast.

    A multi-node chain's ips is the sum of its nodes' logged ips (each node logs its own
    ranks); a single-node chain's is its lowest rank's.
    """
    by_chain: dict[str, list[StageRecord]] = {}
    logged: dict[str, list[float]] = {}  # each chain's records' ips, in by_chain's order
    for r in sorted(trains, key=lambda r: r.node_rank):
        value = number(r.metrics.get("ips"))
        if r.status is Status.PASSED and value:
            by_chain.setdefault(r.chain, []).append(r)
            logged.setdefault(r.chain, []).append(value)
    nodes = {c: launch_nodes(rs[0]) for c, rs in by_chain.items()}
    ips = {c: sum(values) if nodes[c] > 1 else values[0] for c, values in logged.items()}
    out = []
    for multi in (c for c in by_chain if nodes[c] > 1):
        trainer, autocast = chain_parts(multi)
        for single in (c for c in by_chain if nodes[c] == 1 and chain_parts(c) == (trainer, autocast)):
            out.append(
                SpeedupRow(
                    trainer,
                    autocast,
                    multi,
                    anchors[stage_key(by_chain[multi][0])],
                    nodes[multi],
                    ips[multi],
                    single,
                    anchors[stage_key(by_chain[single][0])],
                    ips[single],
                    ips[multi] / ips[single],
                )
            )
    return tuple(out)


class Gathered:
    """The performance section, gathered one record at a time: an infer stage becomes its row as it is
    read; only the train and eval stages (one or two a chain) are kept for their tables. A report
    gathers it while it reads the records for another part of the page."""

    def __init__(self, anchors: Mapping[StageKey, str], multi: bool, scratch: Scratch | None = None) -> None:
        """``scratch``: where the infer stages' rows are kept (``spill.Spill``), else in memory."""
        self.anchors, self.multi = anchors, multi
        self.rows = Spill[PerfRow](scratch, *flat(PerfRow))
        self.plotted = Plotted()
        self.trains: list[StageRecord] = []
        self.evals: list[StageRecord] = []

    def add(self, r: StageRecord) -> None:
        """``r``: one of this run's own records (not carried over)."""
        if r.kind == "infer" and number(r.metrics.get("inference_ms")) is not None:
            row = perf_row(r, self.anchors[stage_key(r)], self.node(r))
            self.rows.append(row)
            self.plotted.add(row)
        elif r.kind == "train":
            self.trains.append(r)
        elif r.kind == "eval":
            self.evals.append(r)

    def node(self, r: StageRecord) -> str:
        return node_label(r.node_rank, r.host) if self.multi else ""

    def performance(self) -> Performance:
        train_rows = tuple(
            TrainRow(
                self.anchors[stage_key(r)],
                r.status.value,
                r.chain,
                self.node(r),
                number(r.metrics.get("ips")),
                number(r.metrics.get("loss")),
                number(r.metrics.get("steps")),
                r.duration,
            )
            for r in self.trains
        )
        plot_groups, omitted = self.plotted.plots()
        return Performance(
            rows=self.rows.held(),
            plots=plot_groups,
            plots_omitted=omitted,
            train=train_rows,
            eval=eval_table(self.evals, self.anchors, self.multi),
            speedups=speedups(self.trains, self.anchors),
            show_node=self.multi,
        )


def build_performance(records: Iterable[StageRecord], anchors: Mapping[StageKey, str], multi: bool) -> Performance:
    gathered = Gathered(anchors, multi)
    for r in records:
        gathered.add(r)
    return gathered.performance()
