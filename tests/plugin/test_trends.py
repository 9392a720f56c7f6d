"""``pytest tipc`` and the trends: the terminal summary names each regression, and
``--tipc-fail-on regression`` makes the session's exit status non-zero though every stage passed."""

from __future__ import annotations

import pytest

from tests.support.trend_history import seed_nights
from tipc.history.store import HISTORY_FILE

STORE = f"fake_target/test_tipc/output/{HISTORY_FILE}"  # beside the results the runs write


@pytest.mark.parametrize(
    ("fail_on", "status"),
    [((), pytest.ExitCode.OK), (("--tipc-fail-on", "regression"), pytest.ExitCode.TESTS_FAILED)],
    ids=["reported-only", "fail-on-regression"],
)
def test_a_slower_night_fails_the_session_only_with_fail_on_regression(tipc_run, monkeypatch, fail_on, status):
    tipc_run.run().assert_outcomes(passed=5)
    seed_nights(tipc_run.pytester.path / STORE, "fake_rec", "lite_train_lite_infer", 12, slower=2)
    monkeypatch.setenv("TIPC_FAKE", "infer:slower=2")
    result = tipc_run.run(*fail_on)
    result.assert_outcomes(passed=5)  # every stage passed: the finding is the run's, not a stage's
    assert result.ret == status
    result.stdout.fnmatch_lines(
        [
            "tipc: regression: fake_rec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt "
            "norm_train-gpus_-1-fp32::infer[[]*-bs1[]]: inference time 4 ms shifted +100.0% "
            "since run 20000101T000010Z-0000000a (from a median of 2 ms; 12 earlier runs)",
        ]
    )
    failing = "tipc: --tipc-fail-on regression: 4 regression(s) fail this run"
    assert (failing in result.stdout.str()) == (status != pytest.ExitCode.OK)


def test_a_failed_stage_keeps_its_own_exit_status(tipc_run, monkeypatch):
    tipc_run.run().assert_outcomes(passed=5)
    seed_nights(tipc_run.pytester.path / STORE, "fake_rec", "lite_train_lite_infer", 12, slower=2)
    monkeypatch.setenv("TIPC_FAKE", "infer:slower=2,train:fail")
    result = tipc_run.run("--tipc-fail-on", "regression")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "tipc: regression" not in result.stdout.str()  # nothing passed that could be judged


def test_bad_trend_option_is_a_usage_error(tipc_run):
    result = tipc_run.run("--tipc-noise-k", "-1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tipc-noise-k -1: expected a number above 0*"])
