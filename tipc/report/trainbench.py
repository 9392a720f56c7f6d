"""The benchmark_train section: speed per batch size × precision × run mode × devices, a throughput plot,
and the speedup of every multi-card or multi-node run over the one-card run of the same batch and precision.

A benchmark train is a train record whose metrics carry the analysis step's figures (``device_num``,
``speed_ips``: ``tipc.run.speedlog``). Its figure is the step's: the logging process's trimmed mean ips
times the cards. On a multi-node run every node records one; the lowest node rank's is shown.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

from tipc.config.benchmark import DEVICE, DeviceNum
from tipc.history.store import StageKey
from tipc.report.figures import number
from tipc.report.naming import stage_key
from tipc.report.svg import Plot, line_plot
from tipc.results.records import StageRecord, Status

ONE_CARD = "N1C1"
TRAIN_BENCHMARK_FILE = "train_benchmark.json"  # beside the report's index.html: the run's speed summary


@dataclass(frozen=True, slots=True)
class BenchRow:
    anchor: str
    status: str
    chain: str
    batch_size: int
    fp_item: str
    run_mode: str
    device_num: str
    ips: float | None  # the speed JSON's: all cards
    speed_unit: str
    ms_per_step: float | None
    records: int
    duration: float


@dataclass(frozen=True, slots=True)
class ScalingRow:
    """One run against the one-card run of its batch size, precision and run mode: "2 cards 1.5×"."""

    chain: str
    anchor: str
    devices: str  # "1 card", "2 cards", "2 nodes × 8 cards"
    batch_size: int
    fp_item: str
    run_mode: str
    cards: int
    ips: float
    speedup: float
    efficiency: float  # speedup ÷ cards


@dataclass(frozen=True, slots=True)
class TrainBenchmark:
    rows: tuple[BenchRow, ...]
    plot: Plot | None
    scaling: tuple[ScalingRow, ...]


def is_benchmark_train(record: StageRecord) -> bool:
    return record.kind == "train" and "device_num" in record.metrics


def build_train_benchmark(records: Iterable[StageRecord], anchors: Mapping[StageKey, str]) -> TrainBenchmark | None:
    """None when the run made no benchmark train."""
    chosen: dict[str, StageRecord] = {}
    for r in sorted((r for r in records if is_benchmark_train(r)), key=lambda r: r.node_rank):
        chosen.setdefault(r.chain, r)
    if not chosen:
        return None
    rows = tuple(_row(r, anchors[stage_key(r)]) for r in chosen.values())
    return TrainBenchmark(rows, _plot(rows), _scaling(rows))


def train_benchmark_json(bench: TrainBenchmark) -> str:
    """The session's summary: every run's figures and every speedup, without the page's anchors."""
    runs = [{k: v for k, v in asdict(row).items() if k != "anchor"} for row in bench.rows]
    speedups = [{k: v for k, v in asdict(s).items() if k != "anchor"} for s in bench.scaling]
    return json.dumps({"runs": runs, "speedups": speedups}, indent=1) + "\n"


def _row(r: StageRecord, anchor: str) -> BenchRow:
    m = r.metrics
    return BenchRow(
        anchor=anchor,
        status=r.status.value,
        chain=r.chain,
        batch_size=int(number(m.get("batch_size")) or 0),
        fp_item=str(m.get("fp_item", "")),
        run_mode=str(m.get("run_mode", "")),
        device_num=str(m.get("device_num", "")),
        ips=number(m.get("speed_ips")) if r.status is Status.PASSED else None,
        speed_unit=str(m.get("speed_unit", "")),
        ms_per_step=number(m.get("ms_per_step")) if r.status is Status.PASSED else None,
        records=int(number(m.get("speed_records")) or 0),
        duration=r.duration,
    )


def _plot(rows: Sequence[BenchRow]) -> Plot | None:
    """Throughput against batch size, a line per precision × devices."""
    series: dict[str, list[tuple[float, float]]] = {}
    for row in rows:
        if row.ips is not None:
            series.setdefault(f"{row.fp_item} {row.run_mode} {row.device_num}", []).append((row.batch_size, row.ips))
    if not series:
        return None
    return line_plot(
        "plot-train-benchmark",
        "Training throughput",
        "batch size",
        "ips (samples/s, all cards)",
        "samples/s",
        list(series.items()),
        integer_x=True,
    )


def _scaling(rows: Sequence[BenchRow]) -> tuple[ScalingRow, ...]:
    """Every run with a figure, against the passed one-card run of its chain's other axes (none: not shown)."""
    base = {_axes(r): r.ips for r in rows if r.device_num == ONE_CARD and r.ips}
    out = []
    for row in rows:
        one, device = base.get(_axes(row)), _device(row.device_num)
        if row.ips is None or not one or device is None:
            continue
        speedup = row.ips / one
        out.append(
            ScalingRow(
                row.chain,
                row.anchor,
                _devices(device),
                row.batch_size,
                row.fp_item,
                row.run_mode,
                device.cards,
                row.ips,
                speedup,
                speedup / device.cards,
            )
        )
    return tuple(sorted(out, key=lambda s: (s.fp_item, s.batch_size, s.run_mode, s.cards)))


def _axes(row: BenchRow) -> str:
    """The chain without its ``NxCy``: trainer, batch size, precision, run mode."""
    return row.chain.rpartition("-")[0]


def _device(label: str) -> DeviceNum | None:
    match = DEVICE.fullmatch(label)
    return DeviceNum(int(match[1]), int(match[2])) if match else None


def _devices(device: DeviceNum) -> str:
    cards = f"{device.cards} card{'s' if device.cards > 1 else ''}"
    if device.nodes == 1:
        return cards
    return f"{device.nodes} nodes × {device.cards // device.nodes} cards"
