"""The history store: one SQLite file, one transaction per run, read by splits and reports, pruned,
and shown by `tipc history`."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from tipc.cli.main import main
from tipc.history.store import HISTORY_FILE, History, HistoryError, RunFigures, StageTime, history_file

MODE = "lite_train_lite_infer"


def figures(run: str, config: str = "m/c.txt", ips: float = 100.0) -> RunFigures:
    return RunFigures(run, config, {("chain::train", 0, "ips"): ips})


def test_a_run_is_one_transaction_in_a_rollback_journal(tmp_path):
    store = History(tmp_path / HISTORY_FILE)
    store.record_run("m", MODE, [figures("r1")], [StageTime("m/c.txt", "chain::train", 5.0, 300.0, 10.0)], 30)
    db = sqlite3.connect(tmp_path / HISTORY_FILE)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("delete",)  # no WAL: shared filesystems
    assert sorted(p.name for p in tmp_path.iterdir()) == [HISTORY_FILE]  # no journal or -wal left
    with pytest.raises(HistoryError):  # a bad figure half-way: nothing of the run is written
        store.record_run("m", MODE, [figures("r2"), RunFigures("r2", "m/d.txt", {("s", 0, "ips"): object()})], [], 30)
    assert [e.run for e in store.series("m", MODE)] == ["r1"]


def test_each_stage_keeps_its_newest_duration(tmp_path):
    store = History(tmp_path / HISTORY_FILE)
    store.record_run("m", MODE, [], [StageTime("m/c.txt", "s", 5.0, None, 20.0)], 30)
    store.record_run("m", MODE, [], [StageTime("m/c.txt", "s", 9.0, None, 10.0)], 30)  # an older run, merged late
    store.record_run("m", "whole_infer", [], [StageTime("m/c.txt", "s", 1.0, None, 30.0)], 30)
    assert store.measured(MODE)[("m/c.txt", "s")].duration == 5.0


WRITER = """
import sys
from tipc.history.store import History, RunFigures
run = RunFigures(sys.argv[2], "m/c.txt", {("chain::train", 0, "ips"): 1.0})
for _ in range(20):  # each write a transaction of its own, all four processes at once
    History(__import__("pathlib").Path(sys.argv[1])).record_run("m", "lite_train_lite_infer", [run], [], 100)
"""


def test_writers_of_one_store_at_once_lose_nothing(tmp_path):
    path = tmp_path / HISTORY_FILE
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), f"r{n:02d}"]) for n in range(4)]
    assert [p.wait(120) for p in procs] == [0] * 4
    assert [e.run for e in History(path).series("m", MODE)] == [f"r{n:02d}" for n in range(4)]


def test_prune_keeps_each_configs_last_runs(tmp_path):
    store = History(tmp_path / HISTORY_FILE)
    for n in range(5):
        store.record_run("m", MODE, [figures(f"r{n}"), figures(f"r{n}", "m/d.txt")], [], 30)
    store.record_run("o", MODE, [figures("r0")], [], 30)
    assert store.prune(2, "m") == 6 and store.prune(2) == 0
    assert [(e.run, e.config) for e in store.series("m", MODE)] == [
        (r, c) for r in ("r3", "r4") for c in ("m/c.txt", "m/d.txt")
    ]
    assert [e.run for e in store.series("o", MODE)] == ["r0"]


@pytest.mark.parametrize(
    ("results", "env", "expected"),
    [
        ("out/m/lite_train_lite_infer", {}, "out/tipc-history.sqlite"),
        ("merged", {}, "reports/m/lite_train_lite_infer/tipc-history.sqlite"),
        ("out/m/lite_train_lite_infer", {"TIPC_HISTORY": "/cache/h.sqlite"}, "/cache/h.sqlite"),
    ],
    ids=["output-root", "results-elsewhere", "env"],
)
def test_where_the_store_lives(tmp_path, results, env, expected):
    fallback = tmp_path / "reports" / "m" / MODE
    found = history_file(tmp_path / results, "m", MODE, fallback, env)
    assert found == (tmp_path / expected if not expected.startswith("/") else type(found)(expected))


def test_tipc_history_lists_shows_exports_and_prunes(tmp_path, capsys):
    path = tmp_path / HISTORY_FILE
    for n in range(3):
        History(path).record_run("m", MODE, [figures(f"r{n}", ips=10.0 * n)], [], 30)
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
