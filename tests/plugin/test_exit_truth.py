"""Every way pytest can leave a selected stage unrun: never exit 0, and a run that never started
writes nothing (no results folder, no history, no report whose ``latest`` moves)."""

from __future__ import annotations

import pytest

from tests.plugin.conftest import Tipc

CHAIN = "norm_train-gpus_-1-fp32"
SKIP_EXPORT = (  # a plugin of the user's: skip marks on stage items
    "import pytest\n"
    "def pytest_collection_modifyitems(items):\n"
    "    for item in items:\n"
    "        if item.name in WHICH:\n"
    "            item.add_marker(pytest.mark.skip(reason='not today'))\n"
)


def _nothing_written(tipc_run: Tipc) -> None:
    assert not tipc_run.out().exists()
    assert not (tipc_run.pytester.path / "reports").exists()


@pytest.mark.parametrize("flag", ["--setup-plan", "--setup-only"])
def test_setup_plan_and_setup_only_are_refused_and_write_nothing(tipc_run, flag):
    result = tipc_run.run(flag)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: tipc: {flag} runs no test*--collect-only*--tipc-dry-run*"])
    _nothing_written(tipc_run)


def test_a_bad_ini_key_under_strict_config_writes_nothing(tipc_run):
    tipc_run.pytester.makeini("[pytest]\nno_such_key = 1\n")
    result = tipc_run.run("--strict-config")
    assert result.ret != pytest.ExitCode.OK
    _nothing_written(tipc_run)


def test_a_misspelt_hook_stops_pytest_and_writes_nothing(tipc_run):
    pytester = tipc_run.pytester
    pytester.makepyfile(misspelt="def pytest_colection_modifyitems(items):\n    pass\n")
    pytester.syspathinsert()
    result = tipc_run.run("-p", "misspelt")
    assert result.ret != pytest.ExitCode.OK
    _nothing_written(tipc_run)


def test_a_stage_skipped_by_a_mark_is_recorded_and_counted(tipc_run):
    pytester = tipc_run.pytester
    pytester.makepyfile(skipper=f"WHICH = ('export',)\n{SKIP_EXPORT}")
    pytester.syspathinsert()
    result = tipc_run.run("-p", "skipper")
    records = {r["id"].rpartition("::")[2]: r for r in tipc_run.records()}
    assert records["export"]["status"] == "skipped"
    assert records["export"]["reason"] == "not run: pytest skipped its item: not today"
    assert {r["status"] for name, r in records.items() if name.startswith("infer")} == {"blocked"}
    result.stdout.fnmatch_lines(["tipc: 2 passed, 2 blocked, 1 skipped in *"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the infer cases were asked for and did not run


def test_a_run_whose_every_stage_was_skipped_by_a_mark_is_not_green(tipc_run):
    pytester = tipc_run.pytester
    pytester.makepyfile(skipper=SKIP_EXPORT.replace("item.name in WHICH", "True"))
    pytester.syspathinsert()
    result = tipc_run.run("-p", "skipper")
    result.assert_outcomes(skipped=5)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(
        ["tipc: no stage ran: every selected stage was skipped before it started*exit status 5"]
    )
    assert [r["status"] for r in tipc_run.records()] == ["skipped"] * 5


def test_ctrl_c_while_pytest_starts_is_one_line_and_writes_nothing(tipc_run):
    pytester = tipc_run.pytester
    pytester.mkpydir("slow_start").joinpath("conftest.py").write_text("raise KeyboardInterrupt\n")
    result = pytester.runpytest_subprocess(*tipc_run.args(), str(pytester.path / "slow_start"))
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert result.stderr.lines[-1] == "tipc: interrupted while pytest was starting (Ctrl-C); nothing was run"
    result.stderr.no_fnmatch_line("Traceback*")
    _nothing_written(tipc_run)
