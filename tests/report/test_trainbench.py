"""The benchmark_train section of the report, read back with an HTML parser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.htmlq import parse
from tests.support.recorded_runs import HOSTILE, ResultsWriter
from tipc.report import write_report
from tipc.report.trainbench import TRAIN_BENCHMARK_FILE
from tipc.results.records import Status


def bench(bs: int, fp: str, device: str, ips: float | None, unit: str = "samples/s") -> dict:
    return {
        "ips": 10.0,
        "loss": 1.0,
        "steps": 16,
        "speed_ips": ips,
        "ms_per_step": None if ips is None else bs * 1000 / ips,
        "speed_records": 16,
        "batch_size": bs,
        "fp_item": fp,
        "run_mode": "DP",
        "device_num": device,
        "speed_unit": unit,
        "speed_file": f"/b/index/r_bs{bs}_{fp}_DP_{device}_speed",
    }


def benchmark_run(root: Path, one: float = 66.7, two: float = 110.7, status: Status = Status.PASSED) -> Path:
    w = ResultsWriter(root)
    for chain, metrics, st in (
        ("norm_train-bs32-fp32-DP-N1C1", bench(32, "fp32", "N1C1", one), Status.PASSED),
        ("norm_train-bs32-fp32-DP-N1C2", bench(32, "fp32", "N1C2", two, "images/s"), status),
        ("norm_train-bs64-fp32-DP-N1C1", bench(64, "fp32", "N1C1", 80.0), Status.PASSED),
        ("norm_train-bs32-amp-DP-N2C16", bench(32, "fp16", "N2C16", 900.0), Status.PASSED),
        ("norm_train-bs32-fp32-DP-N2C4", bench(32, "fp32", "N2C4", 200.1), Status.PASSED),
    ):
        w.add(chain, "train", st, metrics=metrics, returncode=0 if st is Status.PASSED else 1)
    return w.write(mode="benchmark_train")


def cells(table) -> list[list[str]]:
    return [[td.text.strip() for td in tr.find_all("td")] for tr in table.find("tbody").find_all("tr")]


def test_runs_plot_and_speedup_over_one_card(tmp_path):
    index = write_report([benchmark_run(tmp_path / "r")], tmp_path / "reports")
    doc = parse(index.read_text())
    runs = cells(doc.find("table", id="train-benchmark-runs"))
    assert [row[:8] for row in runs] == [
        ["norm_train-bs32-fp32-DP-N1C1", "passed", "32", "fp32", "DP", "N1C1", "66.70", "samples/s"],
        ["norm_train-bs32-fp32-DP-N1C2", "passed", "32", "fp32", "DP", "N1C2", "110.70", "images/s"],
        ["norm_train-bs64-fp32-DP-N1C1", "passed", "64", "fp32", "DP", "N1C1", "80", "samples/s"],
        ["norm_train-bs32-amp-DP-N2C16", "passed", "32", "fp16", "DP", "N2C16", "900", "samples/s"],
        ["norm_train-bs32-fp32-DP-N2C4", "passed", "32", "fp32", "DP", "N2C4", "200.10", "samples/s"],
    ]
    # The fp16 run has no one-card run to compare with: no speedup row, rather than a wrong one.
    assert cells(doc.find("table", id="train-benchmark-speedup")) == [
        ["1 card", "32", "fp32", "DP", "66.70", "1.00×", "100 %"],
        ["2 cards", "32", "fp32", "DP", "110.70", "1.66×", "83 %"],
        ["2 nodes × 2 cards", "32", "fp32", "DP", "200.10", "3.00×", "75 %"],
        ["1 card", "64", "fp32", "DP", "80", "1.00×", "100 %"],
    ]
    points = doc.find("svg", id="plot-train-benchmark").find_all("g", cls="series")
    labels = ["fp16 DP N2C16", "fp32 DP N1C1", "fp32 DP N1C2", "fp32 DP N2C4"]
    assert sorted(g.attrs["data-label"] for g in points) == labels
    assert doc.find("a", href="#train-benchmark").text == "Training benchmark"
    summary = json.loads((index.parent / TRAIN_BENCHMARK_FILE).read_text())
    assert [s["speedup"] for s in summary["speedups"]] == pytest.approx([1.0, 110.7 / 66.7, 200.1 / 66.7, 1.0])


def test_the_profiling_pass_comes_first_in_the_status_matrix(tmp_path):
    w = ResultsWriter(tmp_path / "r")
    w.add("norm_train-bs8-fp32-DP-N1C1", "train", Status.PASSED, metrics=bench(8, "fp32", "N1C1", 5.0))
    w.add("norm_train-bs8-fp32-DP-N1C1", "profile", Status.PASSED)
    doc = parse(write_report([w.write(mode="benchmark_train")], tmp_path / "reports").read_text())
    heads = [th.text.strip() for th in doc.find("table", id="matrix").find("thead").find_all("th")]
    assert heads[1:3] == ["profile", "train"]


def test_a_failed_multi_card_run_has_no_figure_and_no_speedup(tmp_path):
    index = write_report([benchmark_run(tmp_path / "r", status=Status.FAILED)], tmp_path / "reports")
    doc = parse(index.read_text())
    assert cells(doc.find("table", id="train-benchmark-runs"))[1][6] == "–"
    devices = [row[0] for row in cells(doc.find("table", id="train-benchmark-speedup"))]
    assert devices == ["1 card", "2 nodes × 2 cards", "1 card"]


def test_a_report_without_benchmark_runs_has_no_section(single_run, tmp_path):
    index = write_report([single_run], tmp_path / "reports")
    assert parse(index.read_text()).find_all("section", id="train-benchmark") == []
    assert not (index.parent / TRAIN_BENCHMARK_FILE).exists()


def test_run_values_are_escaped(tmp_path):
    w = ResultsWriter(tmp_path / "r")
    w.add(HOSTILE, "train", Status.PASSED, metrics={**bench(8, HOSTILE, "N1C1", 5.0), "run_mode": HOSTILE})
    index = write_report([w.write(mode="benchmark_train")], tmp_path / "reports")
    html = index.read_text()
    assert "<script>alert" not in html
    assert HOSTILE in parse(html).find("table", id="train-benchmark-runs").text
