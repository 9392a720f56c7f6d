"""Other plugins' options beside tipc's: each bounds, refuses or reports a stage as it says."""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET

import pytest

from tests.plugin.conftest import CPU

TIMEOUT_MARK = (  # a plugin of the user's: a timeout mark on the train stage
    "import pytest\n"
    "def pytest_collection_modifyitems(items):\n"
    "    for item in items:\n"
    "        if item.name == 'train':\n"
    "            item.add_marker(pytest.mark.timeout(1.5))\n"
)


@pytest.mark.parametrize("how", ["option", "mark"])
def test_pytest_timeouts_limit_bounds_a_stage_under_tipc_jobs(tipc_run, monkeypatch, how):
    """Under --tipc-jobs a stage starts before pytest reaches its item, so before its timer."""
    pytest.importorskip("pytest_timeout", reason="pytest-timeout is not installed")
    monkeypatch.setenv("TIPC_FAKE", "train:hang")
    monkeypatch.setattr("tipc.proc.child.GRACE", 0.3)
    if how == "mark":
        tipc_run.pytester.makepyfile(timeout_mark=TIMEOUT_MARK)
        tipc_run.pytester.syspathinsert()
    extra = ("--timeout", "1.5") if how == "option" else ("-p", "timeout_mark")
    t0 = time.monotonic()
    result = tipc_run.run("--tipc-jobs", "2", "--tipc-timeout", "train=20", *extra)  # 20: no endless hang
    assert time.monotonic() - t0 < 30  # the hang is 10 minutes long
    result.assert_outcomes(failed=1, skipped=4)
    record = tipc_run.records()[0]
    assert record["status"] == "timeout" and record["reason"].startswith("timed out after 1.5 s")
    assert "the limit was pytest-timeout's timeout" in record["reason"]


ALLURE_LIKE = (  # what allure-pytest asks of a failure: an AssertionError is "failed", else "broken"
    "import pytest\n"
    "@pytest.hookimpl(wrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n"
    "    report = yield\n"
    "    if report.failed:\n"
    "        kind = 'failed' if call.excinfo.errisinstance(AssertionError) else 'broken'\n"
    "        print(f'\\nallure-like: {item.name}: {kind}')\n"
    "    return report\n"
)


def test_a_failed_stage_is_a_failure_not_a_broken_test(tipc_run, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE", "train:fail")
    tipc_run.pytester.makepyfile(allure_like=ALLURE_LIKE)
    tipc_run.pytester.syspathinsert()
    result = tipc_run.run("-p", "allure_like", "-s")
    result.stdout.fnmatch_lines(["allure-like: train: failed"])
    result.stdout.no_fnmatch_line("allure-like: *: broken")


@pytest.mark.parametrize(
    ("style", "shown", "not_shown"),
    [
        ("long", "--- last 20 lines of the log ---", None),
        ("short", f"*{'exit code: 1'}", "--- last 20 lines of the log ---"),
        ("line", "*::train: FAILED (exit code 1) after * s", "command: *"),
    ],
)
def test_tb_chooses_how_much_of_a_failed_stage_is_shown(tipc_run, monkeypatch, style, shown, not_shown):
    monkeypatch.setenv("TIPC_FAKE", "train:fail")
    result = tipc_run.run(f"--tb={style}")
    result.stdout.fnmatch_lines([shown])
    if not_shown:
        result.stdout.no_fnmatch_line(not_shown)


def test_junit_xml_carries_the_stages_figures(tipc_run):
    xml = tipc_run.pytester.path / "junit.xml"
    tipc_run.run(f"--junitxml={xml}").assert_outcomes(passed=5)
    cases = ET.parse(xml).getroot().iter("testcase")
    props = [{p.get("name"): p.get("value") for p in case.iter("property")} for case in cases]
    assert props[0]["metric.steps"] == "2" and props[0]["returncode"] == "0"
    assert props[3]["metric.batch_size"] == "1" and float(props[0]["peak_rss_mb"]) > 0


def test_ff_names_itself_as_what_reordered_the_items(tipc_run, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE", "export:fail")
    tipc_run.run()
    monkeypatch.delenv("TIPC_FAKE")
    result = tipc_run.run("--ff")
    result.stdout.fnmatch_lines(["tipc: another plugin reordered the items (one of: *--ff); each chain*"])


def test_a_native_toml_ini_gives_numbers_and_booleans(tipc_run):
    pytester = tipc_run.pytester
    ini = pytester.path / "pyproject.toml"
    ini.write_text("[tool.pytest]\ntipc_no_report = true\ntipc_hang_timeout = 300\n")
    args = tipc_run.args()
    args[args.index("-c") + 1] = str(ini)
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=5)
    assert not (pytester.path / "reports").exists()


def test_a_config_outside_given_as_two_words_is_warned_about(tipc_run, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere")
    config = outside / CPU
    config.write_bytes((tipc_run.pytester.path / "test_configs" / "fake_rec" / CPU).read_bytes())
    (outside / "target.yaml").write_text(f"repo: {tipc_run.repo}\n")
    args = tipc_run.args("--co", config=CPU)
    at = args.index("--config")
    result = tipc_run.pytester.runpytest(*args[:at], "--config", str(config), *args[at + 2 :])
    result.stdout.fnmatch_lines([f"*tipc: --config {config} (two words, outside this directory)*--config={config}"])
    one_word = [*args[:at], f"--config={config}", *args[at + 2 :]]
    tipc_run.pytester.runpytest(*one_word).stdout.no_fnmatch_line("*two words*")
