"""A report's run into the history store: what it adds, how far back it keeps, the old trends.jsonl
read into it once, and that a store that does not read costs nothing."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace

import pytest

from tipc.errors import ResultsError
from tipc.history.keys import config_key
from tipc.history.legacy import TREND_FILE
from tipc.history.reports import record_run, stage_times, summary_of
from tipc.history.store import HISTORY_FILE, History, ReportSummary, RunFigures
from tipc.history.summaries import RunSummary, StageSummary
from tipc.report.figures import run_figures
from tipc.results.records import StageRecord, Status

MODEL, MODE = "m", "lite_train_lite_infer"


def entry(run: str, config: str = "c.txt", ms: float = 10.0) -> RunFigures:
    return RunFigures(run, config, {("chain::infer[bs1]", 0, "inference_ms"): ms, ("chain::train", 0, "ips"): 100.0})


def run_id(day: int) -> str:
    return f"202612{day:02d}T013000Z-{day:08x}"


def record(tmp_path, run, keep=30, warn=print, write=True):
    store, legacy = tmp_path / HISTORY_FILE, tmp_path / TREND_FILE
    return record_run(store, legacy, MODEL, MODE, run, (), keep, warn, write=write)


def test_a_run_round_trips_and_its_runs_read_back_in_run_order(tmp_path):
    warnings: list[str] = []
    for day in (3, 1, 2):
        record(tmp_path, (entry(run_id(day), ms=float(day)),), warn=warnings.append)
    entries = History(tmp_path / HISTORY_FILE).series(MODEL, MODE)
    assert warnings == [] and [e.run for e in entries] == [run_id(1), run_id(2), run_id(3)]
    assert entries[2] == entry(run_id(3), ms=3.0)


def test_each_config_keeps_its_last_runs_and_a_rerendered_run_replaces_its_figures(tmp_path):
    for day in range(1, 8):
        record(tmp_path, (entry(run_id(day), "a.txt"),), keep=3)
    record(tmp_path, (entry(run_id(1), "b.txt"),), keep=3)
    kept = record(tmp_path, (entry(run_id(7), "a.txt", ms=99.0),), keep=3)
    assert [(e.config, e.run) for e in kept] == [("b.txt", run_id(1))] + [("a.txt", run_id(d)) for d in (5, 6, 7)]
    assert kept[-1].figures[("chain::infer[bs1]", 0, "inference_ms")] == 99.0


def test_a_shards_own_report_reads_the_history_and_writes_nothing(tmp_path):
    record(tmp_path, (entry(run_id(1)),))
    before = (tmp_path / HISTORY_FILE).read_bytes()
    kept = record(tmp_path, (entry(run_id(2)),), write=False)
    assert [e.run for e in kept] == [run_id(1), run_id(2)] and (tmp_path / HISTORY_FILE).read_bytes() == before


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
def test_the_old_trends_file_is_read_into_the_store_once_a_bad_line_skipped_and_named(tmp_path, bad, why):
    good = {"schema": 1, "run": run_id(1), "config": "/old/checkout/m/c.txt", "stages": []}
    good["stages"] = [{"id": "chain::train", "node": 0, "figures": {"ips": 90.0}}]
    original = json.dumps(good).encode() + b"\n" + (bad if isinstance(bad, bytes) else bad.encode()) + b"\n"
    (tmp_path / TREND_FILE).write_bytes(original)
    warnings: list[str] = []
    kept = record(tmp_path, (entry(run_id(2), "m/c.txt"),), warn=warnings.append)
    assert [(e.run, e.config) for e in kept] == [(run_id(1), "m/c.txt"), (run_id(2), "m/c.txt")]  # one series
    assert (
        warnings[0].startswith(f"tipc: skipped trend history line {tmp_path / TREND_FILE}:2: ") and why in warnings[0]
    )
    assert (tmp_path / TREND_FILE).read_bytes() == original  # left as it was
    (tmp_path / TREND_FILE).write_text("")  # read once: the store has this model and mode now
    assert len(record(tmp_path, (entry(run_id(3), "m/c.txt"),))) == 3


@pytest.mark.parametrize(
    "damage",
    [
        lambda path: path.write_bytes(b"not a database, a text file\n" * 100),
        lambda path: sqlite3.connect(path).execute("UPDATE meta SET value = '9'").connection.commit(),
        lambda path: path.unlink() or path.mkdir(),
    ],
    ids=["not-sqlite", "newer-schema", "a-directory"],
)
def test_a_store_that_does_not_read_is_left_alone_and_the_run_judged_alone(tmp_path, damage):
    record(tmp_path, (entry(run_id(1)),))
    damage(tmp_path / HISTORY_FILE)
    before = sorted(p.name for p in tmp_path.iterdir())
    warnings: list[str] = []
    assert record(tmp_path, (entry(run_id(2)),), warn=warnings.append) == (entry(run_id(2)),)
    assert warnings[0].startswith(f"tipc: trend history {tmp_path / HISTORY_FILE} not read (")
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_only_stages_that_passed_give_figures_and_each_config_its_own_entry():
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
            duration=2.0,
        ),
        StageRecord(
            id="b::train", kind="train", chain="b", status=Status.PASSED, metrics={"ips": 50.0}, config="b.txt"
        ),
        StageRecord(id="b::export", kind="export", chain="b", status=Status.BLOCKED, config="b.txt"),
    ]
    assert run_figures(run_id(1), records) == (
        RunFigures(run_id(1), config_key("a.txt"), {("a::train", 0, "ips"): 100.0}),
        RunFigures(run_id(1), config_key("b.txt"), {("b::train", 0, "ips"): 50.0}),
    )
    assert [(t.config, t.stage, t.duration) for t in stage_times(records)] == [
        (config_key("a.txt"), "a::infer[bs1]", 2.0)
    ]


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
        kept = record(tmp_path, run_figures(run_id(night), merged))
    key = config_key("/builds/elsewhere/PaddleOCR/test_tipc/configs/m/c.txt")
    assert [(e.run, e.config, len(e.figures)) for e in kept] == [(run_id(1), key, 3), (run_id(2), key, 3)]


def summary(day: int) -> RunSummary:
    stages = (StageSummary("chain::train", 0, "passed", "", (("ips", 100.0 + day),)),)
    return RunSummary(MODEL, MODE, run_id(day)[:16], stages, run_id(day), "PaddleOCR:configs/c.txt")


def test_the_summary_of_a_named_run_is_the_first_stores_that_keeps_one(tmp_path):
    """``tipc report --compare``: the run a folder names, in the report's store or the folder's own."""
    ours, theirs, missing = tmp_path / "ours.sqlite", tmp_path / "theirs.sqlite", tmp_path / "missing.sqlite"
    for store, day in ((ours, 2), (theirs, 1), (theirs, 2)):
        kept = replace(summary(day), timestamp=store.stem) if store == theirs else summary(day)
        History(store).record_run(MODEL, MODE, [], [], [ReportSummary(run_id(day), kept.config, kept.to_json())])
    stores = (missing, ours, theirs)
    assert summary_of(stores, MODEL, MODE, run_id(2), pytest.fail) == summary(2)  # ours first
    assert summary_of(stores, MODEL, MODE, run_id(1), pytest.fail) == replace(summary(1), timestamp="theirs")
    assert summary_of(stores, MODEL, MODE, run_id(3), pytest.fail) is None  # no store keeps it
    assert summary_of(stores, "another", MODE, run_id(1), pytest.fail) is None  # another model's run
    assert not missing.exists()  # looked for, not made


def test_a_named_run_whose_stored_summary_does_not_read_is_an_error_naming_the_store(tmp_path):
    store = tmp_path / HISTORY_FILE
    History(store).record_run(MODEL, MODE, [], [], [ReportSummary(run_id(1), "PaddleOCR:configs/c.txt", "{")])
    with pytest.raises(ResultsError) as exc:
        summary_of([store], MODEL, MODE, run_id(1), pytest.fail)
    assert exc.value.path == f"{store} (run {run_id(1)})" and "not a tipc report summary" in str(exc.value)
