"""The history store: one SQLite file, one transaction per run, read by splits and reports, pruned,
and shown by `tipc history`."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from tipc.cli.main import main
from tipc.history.store import (
    HISTORY_FILE,
    SCHEMA,
    History,
    HistoryError,
    MatrixRow,
    ReportSummary,
    RunFigures,
    StageTime,
    history_file,
)

MODE = "lite_train_lite_infer"


def figures(run: str, config: str = "m/c.txt", ips: float = 100.0) -> RunFigures:
    return RunFigures(run, config, {("chain::train", 0, "ips"): ips})


def test_a_run_is_one_transaction_in_a_rollback_journal(tmp_path):
    store = History(tmp_path / HISTORY_FILE)
    store.record_run("m", MODE, [figures("r1")], [StageTime("m/c.txt", "chain::train", 5.0, 300.0, 10.0)])
    db = sqlite3.connect(tmp_path / HISTORY_FILE)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("delete",)  # no WAL: shared filesystems
    assert sorted(p.name for p in tmp_path.iterdir()) == [HISTORY_FILE]  # no journal or -wal left
    with pytest.raises(HistoryError):  # a bad figure half-way: nothing of the run is written
        store.record_run("m", MODE, [figures("r2"), RunFigures("r2", "m/d.txt", {("s", 0, "ips"): object()})], [])
    assert [e.run for e in store.series("m", MODE)] == ["r1"]


def test_each_stage_keeps_its_newest_duration(tmp_path):
    store = History(tmp_path / HISTORY_FILE)
    store.record_run("m", MODE, [], [StageTime("m/c.txt", "s", 5.0, None, 20.0)])
    store.record_run("m", MODE, [], [StageTime("m/c.txt", "s", 9.0, None, 10.0)])  # an older run, merged late
    store.record_run("m", "whole_infer", [], [StageTime("m/c.txt", "s", 1.0, None, 30.0)])
    assert store.measured(MODE)[("m/c.txt", "s")].duration == 5.0


WRITER = """
import sys
from tipc.history.store import History, RunFigures
run = RunFigures(sys.argv[2], "m/c.txt", {("chain::train", 0, "ips"): 1.0})
for _ in range(20):  # each write a transaction of its own, all four processes at once
    History(__import__("pathlib").Path(sys.argv[1])).record_run("m", "lite_train_lite_infer", [run], [])
"""


def test_writers_of_one_store_at_once_lose_nothing(tmp_path):
    path = tmp_path / HISTORY_FILE
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), f"r{n:02d}"]) for n in range(4)]
    assert [p.wait(120) for p in procs] == [0] * 4
    assert [e.run for e in History(path).series("m", MODE)] == [f"r{n:02d}" for n in range(4)]


def test_prune_keeps_each_configs_last_runs(tmp_path):
    store = History(tmp_path / HISTORY_FILE)
    for n in range(5):
        store.record_run("m", MODE, [figures(f"r{n}"), figures(f"r{n}", "m/d.txt")], [])
    store.record_run("o", MODE, [figures("r0")], [])
    assert store.prune(2, "m") == 6 and store.prune(2) == 0
    assert [(e.run, e.config) for e in store.series("m", MODE)] == [
        (r, c) for r in ("r3", "r4") for c in ("m/c.txt", "m/d.txt")
    ]
    assert [e.run for e in store.series("o", MODE)] == ["r0"]


@pytest.mark.parametrize(
    ("results", "setting", "expected"),
    [
        ("out/m/lite_train_lite_infer", None, "out/tipc-history.sqlite"),
        ("merged", None, "reports/m/lite_train_lite_infer/tipc-history.sqlite"),
        ("out/m/lite_train_lite_infer", "cache/h.sqlite", "cache/h.sqlite"),
    ],
    ids=["output-root", "results-elsewhere", "the-history-setting"],
)
def test_where_the_store_lives(tmp_path, results, setting, expected):
    fallback = tmp_path / "reports" / "m" / MODE
    found = history_file(tmp_path / results, "m", MODE, fallback, setting and tmp_path / setting)
    assert found == tmp_path / expected


def test_tipc_history_lists_shows_exports_and_prunes(tmp_path, capsys):
    path = tmp_path / HISTORY_FILE
    for n in range(3):
        History(path).record_run("m", MODE, [figures(f"r{n}", ips=10.0 * n)], [])
    assert main(["history", "--file", str(path), "list"]) == 0
    assert capsys.readouterr().out == f"m\t{MODE}\tm/c.txt\t3 run(s)\tr0 .. r2\n"
    assert main(["history", "--file", str(path), "show", "m", MODE]) == 0
    assert "r2\tm/c.txt\n    chain::train\tnode 0\tips\t20\n" in capsys.readouterr().out
    assert main(["history", "--file", str(path), "export"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["run"] for line in lines] == ["r0", "r1", "r2"]
    assert lines[0]["stages"] == [{"id": "chain::train", "node": 0, "figures": {"ips": 0.0}}]
    assert main(["history", "--file", str(path), "prune", "--keep", "1"]) == 0
    assert "pruned 2 run(s)" in capsys.readouterr().out
    assert main(["history", "--file", str(tmp_path / "none.sqlite"), "list"]) == 2
    assert "no history store here" in capsys.readouterr().err


def summary(run: str, config: str = "m/c.txt") -> ReportSummary:
    stages = [{"id": "chain::train", "node_rank": 0, "status": "passed", "reason": "", "figures": {}}]
    return ReportSummary(run, config, json.dumps({"schema": 2, "model": "m", "mode": MODE, "run_id": run,
                                                  "config": config, "stages": stages}))  # fmt: skip


def test_reports_and_matrix_pages_are_history_too(tmp_path, capsys):
    path = tmp_path / HISTORY_FILE
    store = History(path)
    for n in range(3):
        store.record_run("m", MODE, [figures(f"r{n}")], [], [summary(f"r{n}")])
        store.record_matrix({f"r{n}": [MatrixRow("m/c.txt", MODE, "failed", ("chain::train",), ("KeyError: 'x'",))]})
    assert len(store.reports("m", MODE)) == 3  # a run prunes nothing: the store's policy does
    assert store.prune(2) == 1
    assert [r.run for r in store.reports("m", MODE)] == ["r2", "r1"]  # newest first, pruned with the figures
    assert [run for run, _ in store.matrix()] == ["r2", "r1"]
    assert store.matrix("r2", 5) == [
        ("r1", (MatrixRow("m/c.txt", MODE, "failed", ("chain::train",), ("KeyError: 'x'",)),))
    ]
    assert main(["history", "--file", str(path), "list"]) == 0
    listed = capsys.readouterr().out
    assert f"m\t{MODE}\tm/c.txt\t2 report(s)\tr1 .. r2\n" in listed and "matrix\t\t\t2 page(s)\tr1 .. r2\n" in listed
    assert main(["history", "--file", str(path), "show", "m", MODE]) == 0
    assert "report r2\tm/c.txt\tpassed\tpassed 1\n" in capsys.readouterr().out
    assert main(["history", "--file", str(path), "export"]) == 0
    kinds = [json.loads(line)["kind"] for line in capsys.readouterr().out.splitlines()]
    assert kinds == ["figures", "figures", "report", "report", "matrix", "matrix"]
    assert store.prune(1) == 1 and [r.run for r in store.reports("m", MODE)] == ["r2"] and len(store.matrix()) == 1


def test_a_store_from_before_reports_and_matrix_reads_as_without_them(tmp_path):
    path = tmp_path / HISTORY_FILE
    History(path).record_run("m", MODE, [figures("r0")], [])
    with sqlite3.connect(path) as db:  # the first file format: figures and stages only
        db.execute("DROP TABLE reports")
        db.execute("DROP TABLE matrix")
    db.close()
    assert History(path).reports("m", MODE) == () and History(path).matrix() == []
    History(path).record_run("m", MODE, [figures("r1")], [], [summary("r1")])  # the tables come with a write
    assert [r.run for r in History(path).reports("m", MODE)] == ["r1"]


SCHEMA_1 = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "INSERT INTO meta VALUES ('schema', '1')",
    "CREATE TABLE runs (model TEXT, mode TEXT, config TEXT, run TEXT, recorded REAL NOT NULL,"
    " PRIMARY KEY (model, mode, config, run))",
    "CREATE TABLE figures (model TEXT, mode TEXT, config TEXT, run TEXT, stage TEXT, node INTEGER,"
    " figure TEXT, value REAL NOT NULL, PRIMARY KEY (model, mode, config, run, stage, node, figure))",
    "CREATE TABLE stages (mode TEXT, config TEXT, stage TEXT, duration REAL NOT NULL, peak_mb REAL,"
    " start REAL NOT NULL, PRIMARY KEY (mode, config, stage))",
    f"INSERT INTO runs VALUES ('m', '{MODE}', 'm/c.txt', 'r1', 1), ('m', '{MODE}', 'm/c.txt', 'r2', 2)",
    f"INSERT INTO figures VALUES ('m', '{MODE}', 'm/c.txt', 'r1', 'chain::train', 0, 'ips', 10),"
    f" ('m', '{MODE}', 'm/c.txt', 'r2', 'chain::train', 0, 'ips', 12)",
    f"INSERT INTO stages VALUES ('{MODE}', 'm/c.txt', 'chain::train', 5, NULL, 1)",
)


@pytest.mark.parametrize("first", ["read", "write"])
def test_a_store_of_the_first_format_is_migrated_once_by_whoever_opens_it_first(tmp_path, first):
    path = tmp_path / HISTORY_FILE
    with sqlite3.connect(path) as db:
        for statement in SCHEMA_1:
            db.execute(statement)
    db.close()
    store = History(path)
    if first == "write":
        store.record_run("m", MODE, [figures("r3", ips=14.0)], [])
    runs = [(e.run, e.figures) for e in store.series("m", MODE)]
    assert runs[:2] == [("r1", {("chain::train", 0, "ips"): 10.0}), ("r2", {("chain::train", 0, "ips"): 12.0})]
    assert store.measured(MODE)[("m/c.txt", "chain::train")].duration == 5.0
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == (str(SCHEMA),)
        assert db.execute("SELECT count(*) FROM sqlite_master WHERE name LIKE 'old_%'").fetchone() == (0,)
    db.close()
