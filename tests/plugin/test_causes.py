"""``pytest tipc``: a failed stage's cause in its record and the summary, with rules a plugin adds."""

from __future__ import annotations

import pytest

from tests.plugin.conftest import Tipc

PLUGIN = """
def pytest_tipc_cause_rules():
    return [
        {"kind": "planted", "pattern": r"fake failure \\((\\w+)\\)"},
        {"kind": "broken", "pattern": "("},
    ]
"""


def test_a_plugins_rule_names_the_cause_and_a_bad_one_is_skipped_with_a_warning(
    tipc_run: Tipc, monkeypatch: pytest.MonkeyPatch
) -> None:
    tipc_run.pytester.makepyfile(planted_rules=PLUGIN)
    monkeypatch.setenv("TIPC_FAKE", "train:fail")
    # In a process of its own: the plugin manager tipc asks is the process's.
    result = tipc_run.pytester.runpytest_subprocess("-p", "planted_rules", *tipc_run.args())
    result.assert_outcomes(failed=1, passed=0, skipped=4)
    (train,) = [r for r in tipc_run.records() if r["kind"] == "train"]
    assert (train["cause_kind"], train["cause"]) == ("planted", "TIPC_FAKE")
    assert all(r["cause"] == "" for r in tipc_run.records() if r["kind"] != "train")  # blocked: not failures
    result.stdout.fnmatch_lines(["tipc: failures by cause:", "  fake_rec/*: TIPC_FAKE (planted)"])
    result.stdout.fnmatch_lines(["*a pytest_tipc_cause_rules rule of planted_rules*'(' is not a regular expression*"])
