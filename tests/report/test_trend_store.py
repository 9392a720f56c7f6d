"""The trend history file: what a run adds, how far back it keeps, and that a bad line costs nothing."""

from __future__ import annotations

import json

import pytest

from tipc.report.trend_store import TREND_FILE, RunFigures, read_store, record_run, run_figures
from tipc.results.records import StageRecord, Status


def entry(run: str, config: str = "c.txt", ms: float = 10.0) -> RunFigures:
    return RunFigures(run, config, {("chain::infer[bs1]", 0, "inference_ms"): ms, ("chain::train", 0, "ips"): 100.0})


def run_id(day: int) -> str:
    return f"202612{day:02d}T013000Z-{day:08x}"


def test_a_run_round_trips_and_its_lines_read_back_in_run_order(tmp_path):
    warnings: list[str] = []
    for day in (3, 1, 2):
        record_run(tmp_path, (entry(run_id(day), ms=float(day)),), 30, warnings.append)
    entries, clean = read_store(tmp_path / TREND_FILE, warnings.append)
    assert clean and warnings == []
    assert [e.run for e in entries] == [run_id(1), run_id(2), run_id(3)]
    assert entries[2] == entry(run_id(3), ms=3.0)


def test_each_config_keeps_its_last_runs_and_a_rerendered_run_replaces_its_line(tmp_path):
    for day in range(1, 8):
        record_run(tmp_path, (entry(run_id(day), "a.txt"),), 3, print)
    record_run(tmp_path, (entry(run_id(1), "b.txt"),), 3, print)
    kept = record_run(tmp_path, (entry(run_id(7), "a.txt", ms=99.0),), 3, print)
    assert [(e.config, e.run) for e in kept] == [("b.txt", run_id(1))] + [("a.txt", run_id(d)) for d in (5, 6, 7)]
    assert kept[-1].figures[("chain::infer[bs1]", 0, "inference_ms")] == 99.0
    assert len((tmp_path / TREND_FILE).read_text().splitlines()) == 4


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ("{not json", "Expecting property name"),
        (b"\xff\xfe", "can't decode"),
        (json.dumps({"schema": 2, "run": "x", "config": "c", "stages": []}), "schema 2, this tipc reads schema 1"),
        (
            json.dumps(
                {"schema": 1, "run": "x", "config": "c", "stages": [{"id": "s", "node": 0, "figures": {"ips": "fast"}}]}
            ),
            "figure ips is 'fast'",
        ),
        (json.dumps({"schema": 1, "run": 7, "config": "c", "stages": []}), "run is 7, expected str"),
    ],
    ids=["not-json", "not-utf8", "newer-schema", "figure-not-a-number", "run-not-text"],
)
def test_a_bad_line_is_skipped_named_by_file_and_line_and_kept_aside(tmp_path, bad, why):
    path = tmp_path / TREND_FILE
    record_run(tmp_path, (entry(run_id(1)),), 30, print)
    original = path.read_bytes() + (bad if isinstance(bad, bytes) else bad.encode()) + b"\n"
    path.write_bytes(original)
    warnings: list[str] = []
    kept = record_run(tmp_path, (entry(run_id(2)),), 30, warnings.append)
    assert [e.run for e in kept] == [run_id(1), run_id(2)]
    assert warnings[0].startswith(f"tipc: skipped trend history line {path}:2: ") and why in warnings[0]
    spare = tmp_path / f"{TREND_FILE}.bad-{run_id(2)}"
    assert f"kept as {spare}" in warnings[1]
    assert spare.read_bytes() == original  # nothing the file held is lost
    assert read_store(path, warnings.append)[1]  # the rewritten file reads clean


def test_a_history_that_cannot_be_read_is_left_alone(tmp_path):
    (tmp_path / TREND_FILE).mkdir()  # not a file: reading fails with an OSError, not a bad line
    warnings: list[str] = []
    assert record_run(tmp_path, (entry(run_id(1)),), 30, warnings.append) == (entry(run_id(1)),)
    assert "not read" in warnings[0] and (tmp_path / TREND_FILE).is_dir()


def test_only_stages_that_passed_give_figures_and_each_config_its_own_line():
    records = [
        StageRecord(
            id="a::train", kind="train", chain="a", status=Status.PASSED, metrics={"ips": 100.0}, config="a.txt"
        ),
        StageRecord(
            id="a::infer[bs1]",
            kind="infer",
            chain="a",
            status=Status.FAILED,
            metrics={"inference_ms": 1.0},
            config="a.txt",
        ),
        StageRecord(
            id="b::train", kind="train", chain="b", status=Status.PASSED, metrics={"ips": 50.0}, config="b.txt"
        ),
    ]
    assert run_figures(run_id(1), records) == (
        RunFigures(run_id(1), "a.txt", {("a::train", 0, "ips"): 100.0}),
        RunFigures(run_id(1), "b.txt", {("b::train", 0, "ips"): 50.0}),
    )


def test_a_rerendered_run_replaces_only_its_own_configs_lines(tmp_path):
    record_run(tmp_path, (entry(run_id(1), "a.txt"), entry(run_id(1), "b.txt")), 30, print)
    kept = record_run(tmp_path, (entry(run_id(1), "a.txt", ms=7.0),), 30, print)
    assert sorted((e.config, e.figures[("chain::infer[bs1]", 0, "inference_ms")]) for e in kept) == [
        ("a.txt", 7.0),
        ("b.txt", 10.0),
    ]


@pytest.mark.parametrize(
    ("kind", "metrics", "expected"),
    [
        ("train", {"ips": 120.0}, {"ips": 120.0, "peak_rss_mb": 512.0}),
        (
            "infer",
            {"inference_ms": 5.0, "batch_size": 2, "cpu_rss_mb": 300.0},
            {"inference_ms": 5.0, "throughput": 400.0, "cpu_rss_mb": 300.0},
        ),
        ("eval", {"acc": 0.9}, {}),
    ],
    ids=["train-ips-and-peak-memory", "infer-time-throughput-memory", "eval-none"],
)
def test_the_figures_a_stage_gives(kind, metrics, expected):
    record = StageRecord(
        id=f"c::{kind}", kind=kind, chain="c", status=Status.PASSED, metrics=metrics, peak_rss_mb=512.0
    )
    (line,) = run_figures("R1", [record])
    assert line.figures == {(f"c::{kind}", 0, k): v for k, v in expected.items()}


def test_one_series_per_config_across_shards_checkouts_and_nights(tmp_path):
    def records(night: int, shard: int) -> list[StageRecord]:
        config = f"/builds/runner{shard}-night{night}/PaddleOCR/test_tipc/configs/m/c.txt"
        chain = f"chain{shard}"
        return [
            StageRecord(
                id=f"{chain}::train",
                kind="train",
                chain=chain,
                status=Status.PASSED,
                metrics={"ips": 10.0 * night},
                config=config,
            )
        ]

    for night in (1, 2):
        merged = [r for shard in (1, 2, 3) for r in records(night, shard)]
        kept = record_run(tmp_path, run_figures(run_id(night), merged), 30, print)
    assert [(e.run, e.config, len(e.figures)) for e in kept] == [(run_id(1), "m/c.txt", 3), (run_id(2), "m/c.txt", 3)]
    old = json.dumps({"schema": 1, "run": run_id(0), "config": "/old/checkout/m/c.txt", "stages": []})
    (tmp_path / TREND_FILE).write_text(old + "\n" + (tmp_path / TREND_FILE).read_text())
    assert {e.config for e in read_store(tmp_path / TREND_FILE, print)[0]} == {"m/c.txt"}  # older lines join it
