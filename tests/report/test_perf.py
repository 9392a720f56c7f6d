from __future__ import annotations

import pytest

from tests.support.anchors import make_anchors
from tests.support.recorded_runs import CASES, bench, label
from tipc.report.figures import number, throughput
from tipc.report.naming import stage_key
from tipc.report.perf import Plotted, build_performance, launch_nodes, perf_row, series_label
from tipc.results.records import StageRecord, Status


def infer(chain: str, c: dict, ms: float, node: int = 0) -> StageRecord:
    return StageRecord(
        id=f"{chain}::infer[{label(c)}]",
        kind="infer",
        chain=chain,
        status=Status.PASSED,
        infer=c,
        metrics=bench(c, ms),
        node_rank=node,
    )


def train(chain: str, ips: float, node: int = 0, argv=()) -> StageRecord:
    return StageRecord(
        id=f"{chain}::train",
        kind="train",
        chain=chain,
        status=Status.PASSED,
        node_rank=node,
        argv=argv,
        metrics={"ips": ips},
    )


@pytest.mark.parametrize(
    "value, expected",
    [(3, 3.0), ("4.5", 4.5), (None, None), ("None", None), (True, None), (float("nan"), None)],
    ids=["int", "str", "none", "none-text", "bool", "nan"],
)
def test_number(value, expected):
    assert number(value) == expected


@pytest.mark.parametrize(
    "metrics, infer_case, expected",
    [
        ({"batch_size": 6, "inference_ms": 374.8274}, None, 1000 * 6 / 374.8274),
        ({"inference_ms": 50.0}, {"batch_size": "2"}, 40.0),
        ({"batch_size": 6}, None, None),
        ({"batch_size": 6, "inference_ms": 0}, None, None),
    ],
    ids=["from-metrics", "bs-from-case", "no-time", "zero-time"],
)
def test_throughput_definition(metrics, infer_case, expected):
    r = StageRecord(id="c::infer[x]", kind="infer", chain="c", status=Status.PASSED, metrics=metrics, infer=infer_case)
    assert throughput(r) == (pytest.approx(expected) if expected else None)


@pytest.mark.parametrize(
    "argv, nodes",
    [
        (("py", "-m", "paddle.distributed.launch", "--ips=10.0.0.1,10.0.0.2", "--gpus=0,1"), 2),
        (("py", "-m", "paddle.distributed.launch", "--ips", "a,b,c"), 3),
        (("py", "-m", "paddle.distributed.launch", "--gpus=0,1"), 1),
        (("py", "tools/train.py"), 1),
    ],
    ids=["ips-eq", "ips-sep", "one-node-launch", "plain"],
)
def test_launch_nodes(argv, nodes):
    assert launch_nodes(train("c", 1.0, argv=argv)) == nodes


def test_series_labels_name_the_knobs_of_each_device():
    row = perf_row(infer("c", CASES[2], 45.0), "a", "")
    assert series_label(row, False, False) == "cpu fp32 mkldnn=True threads=2"
    assert series_label(row, True, False).startswith("c cpu")


def test_performance_groups_points_by_series_and_computes_speedup():
    fleet = "norm_train-gpus_h1,h2;0-fp32"
    argv = ("py", "-m", "paddle.distributed.launch", "--ips=h1,h2", "tools/train.py")
    records = [infer("c", c, ms) for c, ms in zip(CASES, (60.0, 300.0, 40.0, 200.0), strict=False)] + [
        train(fleet, 100.0, 0, argv),
        train(fleet, 90.0, 1, argv),
        train("norm_train-gpus_0-fp32", 80.0),
        train("pact_train-gpus_0-fp32", 50.0),
    ]
    perf = build_performance(records, make_anchors((stage_key(r) for r in records), "stage", True), True)
    ((time_plot, tput_plot),) = (g.plots for g in perf.plots)
    assert [len(s.points) for s in time_plot.series] == [2, 2]
    assert [p.y for p in time_plot.series[0].points] == [60.0, 300.0]
    assert [p.y for p in tput_plot.series[1].points] == pytest.approx([25.0, 30.0])
    (s,) = perf.speedups
    assert (s.multi_chain, s.single_chain, s.nodes) == (fleet, "norm_train-gpus_0-fp32", 2)
    assert s.speedup == pytest.approx(190 / 80)


def test_one_plot_pair_per_chain_and_a_cap():
    rows = [perf_row(infer(f"chain{i}", c, 10.0), "a", "") for i in range(9) for c in CASES[:2]]
    plotted = Plotted()
    for row in rows:
        plotted.add(row)
    groups, omitted = plotted.plots()
    assert [g.title for g in groups] == [f"chain{i}" for i in range(6)] and omitted == 3
    assert [s.label for s in groups[0].plots[0].series] == ["cpu fp32 mkldnn=False threads=1"]
    assert len({p.id for g in groups for p in g.plots}) == 12
