"""``tipc run`` and the trends: regressions are printed, and with ``--fail-on regression`` they fail the run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.cli.test_run_cmd import tipc_run
from tests.support.fake_target import CPU_CONFIG
from tests.support.htmlq import parse
from tests.support.trend_history import seed_nights
from tipc.cli.main import main
from tipc.history.store import HISTORY_FILE

MODE = "lite_train_lite_infer"


@pytest.mark.parametrize(
    ("fail_on", "code"),
    [((), 0), (("--fail-on", "regression"), 1), (("--fail-on", "golden,regression"), 1), (("--fail-on", "none"), 0)],
    ids=["reported-only", "fail-on-regression", "fail-on-both", "fail-on-none"],
)
def test_a_slower_night_is_a_regression_that_fails_the_run_only_when_asked(
    fake_repo, capsys, monkeypatch, fail_on, code
):
    assert tipc_run(fake_repo) == 0
    seed_nights(fake_repo / "test_tipc" / "output" / HISTORY_FILE, "fake_rec", MODE, 12, slower=2)
    capsys.readouterr()
    monkeypatch.setenv("TIPC_FAKE", "infer:slower=2")
    assert tipc_run(fake_repo, *fail_on) == code
    err = capsys.readouterr().err.splitlines()
    found = [line for line in err if line.startswith("tipc: regression: ")]
    assert len(found) == 4  # inference time and throughput, at both batch sizes
    assert "::infer[" in found[0] and ": inference time 4 ms shifted +100.0% since run 20000101T000010Z-" in found[0]
    assert "(from a median of 2 ms; 12 earlier runs)" in found[0]  # dated to the first of the three slow nights
    assert ("tipc: --fail-on regression: 4 regression(s) fail this run" in err) == bool(code)


def test_a_steady_night_passes_with_fail_on_regression(fake_repo, capsys):
    assert tipc_run(fake_repo) == 0
    seed_nights(fake_repo / "test_tipc" / "output" / HISTORY_FILE, "fake_rec", MODE, 12)
    assert tipc_run(fake_repo, "--fail-on", "regression") == 0
    assert "tipc: regression" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (("--trend-runs", "x"), "--trend-runs x: expected a whole number"),
        (("--noise-k", "0"), "--noise-k 0: expected a number above 0"),
        (("--noise-k", "nan"), "--noise-k nan: expected a number above 0"),
        (("--trend-min-runs", "1"), "--trend-min-runs 1: expected 2 or more"),
        (("--trend-runs", "3"), "--trend-runs 3: expected at least --trend-min-runs (10)"),
        (("--min-effect", "speed=5%"), "--min-effect expected KIND=PERCENT with KIND one of time, memory, accuracy"),
    ],
    ids=["runs-not-a-number", "k-zero", "k-nan", "min-runs-1", "window-below-min", "min-effect-kind"],
)
def test_bad_trend_options_are_usage_errors(fake_repo, capsys, option, message):
    assert tipc_run(fake_repo, *option) == 2
    assert message in capsys.readouterr().err


def test_the_matrix_page_counts_each_configs_regressions(fake_repo, capsys, monkeypatch):
    folder = fake_repo / CPU_CONFIG.rpartition("/")[0]  # two configs, two models: a matrix page
    run = ["run", "--config", str(folder), "--mode", MODE, "--python", sys.executable, "--report-dir"]
    assert main([*run, str(fake_repo / "reports")]) == 0
    for model in ("fake_rec", "fake_rec_amp"):
        seed_nights(fake_repo / "test_tipc" / "output" / HISTORY_FILE, model, MODE, 12, slower=2)
    monkeypatch.setenv("TIPC_FAKE", "infer:slower=2")
    capsys.readouterr()
    assert main([*run, str(fake_repo / "reports"), "--fail-on", "regression"]) == 1
    (matrix,) = [
        Path(line.removeprefix("tipc: matrix report: "))
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("tipc: matrix")
    ]
    cells = [tr.find_all("td")[-3] for tr in parse(matrix.read_text()).find("tbody").find_all("tr")]
    # the amp config has two chains (fp32 and amp): both slower at both batch sizes
    assert sorted(c.attrs["data-regressions"] for c in cells) == ["4", "8"]
    for cell in cells:
        assert cell.find("a").attrs["href"].endswith("/index.html#regressions")
