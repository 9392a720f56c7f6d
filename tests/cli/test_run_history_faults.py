"""A history store that is forged, locked or a year long never stops a night, and a regression fails
the night wherever it ends: ``tipc run``, ``tipc report``."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.test_run_cmd import tipc_run
from tests.support.htmlq import parse
from tests.support.trend_history import seed_nights
from tipc.cli.main import main
from tipc.history.store import HISTORY_FILE, History

MODE = "lite_train_lite_infer"


def store_of(repo):
    return repo / "test_tipc" / "output" / HISTORY_FILE


def forge(path, *statements: str) -> None:
    with sqlite3.connect(path) as db:
        for statement in statements:
            db.execute(statement)


def test_text_in_a_duration_is_skipped_with_one_warning_naming_it(fake_repo, capsys):
    assert tipc_run(fake_repo) == 0
    forge(store_of(fake_repo), "UPDATE stages SET duration = 'fast' WHERE stage LIKE '%::train'")
    capsys.readouterr()
    assert tipc_run(fake_repo) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    warned = [line for line in err.splitlines() if "bad duration row(s)" in line]
    assert len(warned) == 1 and "'fast'" in warned[0] and "::train" in warned[0]


def test_infinite_and_text_figures_are_never_drawn_nor_judged(fake_repo, capsys):
    assert tipc_run(fake_repo) == 0
    seed_nights(store_of(fake_repo), "fake_rec", MODE, 6)
    forge(
        store_of(fake_repo),
        *(
            f"UPDATE figures SET value = {value} WHERE run IN (SELECT id FROM runs WHERE run LIKE '%0{night}Z-%')"
            " AND series IN (SELECT id FROM series WHERE figure LIKE 'inference%')"
            for night, value in ((1, "9e999"), (2, "-9e999"), (3, "'slow'"))
        ),
    )
    capsys.readouterr()
    assert tipc_run(fake_repo, "--fail-on", "regression") == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "bad figure row(s)" in err
    page = next((fake_repo / "reports" / "fake_rec" / MODE).glob("*/index.html")).read_text()
    assert "nan" not in page.lower().replace("nano", "") and "inf" not in {w.lower() for w in page.split('"')}


@pytest.mark.parametrize("action", [["list"], ["show", "fake_rec", MODE], ["export"]])
def test_tipc_history_reads_a_forged_store_without_a_traceback(fake_repo, capsys, action):
    assert tipc_run(fake_repo) == 0
    store = store_of(fake_repo)
    forge(
        store,
        "UPDATE figures SET value = 'x'",
        "UPDATE stages SET start = 'yesterday'",
        "UPDATE reports SET summary = '{not json'",
        "INSERT INTO matrix VALUES ('r', 'c', 'm', 'failed', 'no list', '[]')",
    )
    capsys.readouterr()
    assert main(["history", "--file", str(store), *action]) == 0
    assert "Traceback" not in capsys.readouterr().err


HOLDER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(120)
"""


def test_a_locked_store_is_waited_for_within_its_bound_then_the_run_goes_on(fake_repo, capsys, monkeypatch):
    assert tipc_run(fake_repo) == 0
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(store_of(fake_repo))], stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"locked"
        monkeypatch.setenv("TIPC_HISTORY_WAIT", "1")
        capsys.readouterr()
        started = time.monotonic()
        assert tipc_run(fake_repo) == 0
        took = time.monotonic() - started
    finally:
        holder.kill()
        holder.communicate()
    err = capsys.readouterr().err
    assert "is locked by another process; waiting up to 1 s (TIPC_HISTORY_WAIT)" in err
    assert err.count("waiting up to") == 1  # given up once, not waited for at every read
    assert "this run goes on without it" in err
    assert took < 30


def test_a_year_of_nights_outlives_ordinary_runs_and_reports_then_prune_returns_the_space(fake_repo, capsys):
    assert tipc_run(fake_repo) == 0
    store = store_of(fake_repo)
    seed_nights(store, "fake_rec", MODE, 365)
    assert tipc_run(fake_repo, "--trend-runs", "400") == 0
    assert tipc_run(fake_repo) == 0
    results = fake_repo / "test_tipc" / "output" / "fake_rec" / MODE
    assert main(["report", str(results), "--out", str(fake_repo / "reports")]) == 0
    assert len(History(store).series("fake_rec", MODE)) == 367  # nothing trimmed on the way
    before = store.stat().st_size
    assert main(["history", "--file", str(store), "prune", "--keep", "10"]) == 0
    assert "pruned 357 run(s)" in capsys.readouterr().out
    assert store.stat().st_size < before / 2


def test_tipc_report_fails_a_regressed_night_and_its_badge_says_so(fake_repo, capsys, monkeypatch):
    assert tipc_run(fake_repo) == 0
    seed_nights(store_of(fake_repo), "fake_rec", MODE, 12, slower=2)
    monkeypatch.setenv("TIPC_FAKE", "infer:slower=2")
    assert tipc_run(fake_repo, "--no-report") == 0
    monkeypatch.delenv("TIPC_FAKE")
    results = fake_repo / "test_tipc" / "output" / "fake_rec" / MODE
    reports = fake_repo / "night-reports"
    capsys.readouterr()
    assert main(["report", str(results), "--out", str(reports), "--fail-on", "regression"]) == 1
    out, err = capsys.readouterr()
    assert "tipc: regression: " in err
    page = parse(Path(out.strip()).read_text())
    assert page.find(id="verdict").attrs["data-overall"] == "regressed"
    monkeypatch.setenv("TIPC_FAIL_ON", "regression")  # the setting, as the nightly recipes export it
    assert main(["report", str(results), "--out", str(reports)]) == 1
    monkeypatch.setenv("TIPC_FAIL_ON", "none")
    assert main(["report", str(results), "--out", str(reports)]) == 0  # the regression is reported, not failing
