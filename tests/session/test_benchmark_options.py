"""benchmark_train's inputs besides the config: ``--benchmark-params`` and benchmark_train.sh's env variables."""

from __future__ import annotations

from pathlib import Path

import pytest

from tipc.config.benchmark import parse_selector
from tipc.errors import SettingsError
from tipc.plan.model import BenchmarkOptions
from tipc.session.settings import benchmark_options

CWD = Path("/srv/run")


@pytest.mark.parametrize(
    ("params", "environ", "expected"),
    [
        (None, {}, BenchmarkOptions((), ".", "True")),
        (
            "dynamic_bs8_fp32_DP_N1C1,dynamic_bs8_fp32_DP_N1C2",
            {"BENCHMARK_LOG_DIR": "bench", "PROFILING_TIMER_ONLY": "no"},
            BenchmarkOptions(
                (parse_selector("dynamic_bs8_fp32_DP_N1C1"), parse_selector("dynamic_bs8_fp32_DP_N1C2")),
                "/srv/run/bench",
                "no",
            ),
        ),
        (None, {"BENCHMARK_LOG_DIR": "/logs", "PROFILING_TIMER_ONLY": "False"}, BenchmarkOptions((), "/logs", "False")),
    ],
    ids=["defaults", "params-and-relative-dir", "absolute-dir-timer-only-false"],
)
def test_options_and_environment(params, environ, expected):
    assert benchmark_options(params, environ, CWD) == expected


def test_a_bad_word_is_a_usage_error_with_the_form():
    with pytest.raises(SettingsError, match=r"--benchmark-params 'dynamic_bs8': expected 5 '_'-separated parts"):
        benchmark_options("dynamic_bs8", {}, CWD)
