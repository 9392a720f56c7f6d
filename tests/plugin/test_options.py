"""The pytest front's option names beside other plugins: ``--tipc-<name>``, ``--config``/``--mode`` where free."""

from __future__ import annotations

import json

import pytest

from tipc.session.options import old_spelling, prefixed, respell

TIMEOUT_PLUGIN = (  # what pytest-timeout declares (the real one is off: -p no:timeout): no clash with tipc's
    "def pytest_addoption(parser):\n"
    "    parser.getgroup('timeout').addoption('--timeout', dest='other_timeout', default=None)\n"
    "def pytest_report_header(config):\n"
    "    return f'other timeout: {config.getoption(\"other_timeout\")}'\n"
)
CONFIG_PLUGIN = (  # a plugin of its own that owns --config and --mode
    "def pytest_addoption(parser):\n"
    "    group = parser.getgroup('theirs')\n"
    "    group.addoption('--config', dest='their_config', default=None)\n"
    "    group.addoption('--mode', dest='their_mode', default=None)\n"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("--timeout train=x: expected", "--tipc-timeout train=x: expected"),
        ("--jobs/--mem-per-chain/--shard: drop them", "--tipc-jobs/--tipc-mem-per-chain/--tipc-shard: drop them"),
        ("--config needs --mode", "--config needs --mode"),
        ("--no-doctor, --doctor", "--tipc-no-doctor, --tipc-doctor"),
        ("launch --ips 1,2 --gpus 0 --device_id", "launch --tipc-ips 1,2 --gpus 0 --device_id"),
        ("--tipc-jobs stays", "--tipc-jobs stays"),
        ("--timeouts, x--jobs", "--timeouts, x--jobs"),
    ],
    ids=["flag", "slashed", "kept", "negated", "only-tipcs", "already", "not-a-flag"],
)
def test_messages_name_the_pytest_fronts_flags(text, expected):
    assert respell(text) == expected


@pytest.mark.parametrize(
    ("arg", "new"),
    [
        ("--timeout", "--tipc-timeout"),
        ("--timeout=train=5", "--tipc-timeout"),
        ("--dry-run", "--tipc-dry-run"),
        ("--config", None),
        ("--tipc-jobs", None),
        ("--junitxml", None),
        ("-k", None),
    ],
    ids=["flag", "with-value", "switch", "kept", "new", "pytests", "short"],
)
def test_old_spellings(arg, new):
    assert old_spelling(arg) == new


def test_prefixed():
    assert prefixed("--hang-timeout") == "--tipc-hang-timeout"


def test_an_old_spelling_nothing_else_owns_names_the_new_one(tipc_run):
    result = tipc_run.run("--jobs", "2")  # --timeout: pytest-timeout's where it is installed
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--jobs: tipc's pytest option is now --tipc-jobs (the tipc command keeps --jobs)*"])


def test_another_plugins_timeout_leaves_pytest_starting_and_tipc_running(tipc_run):
    pytester = tipc_run.pytester
    pytester.makepyfile(timeout_plugin=TIMEOUT_PLUGIN, test_unrelated="def test_ok():\n    pass\n")
    pytester.syspathinsert()
    unrelated = pytester.runpytest("-p", "no:timeout", "-p", "timeout_plugin", "--timeout", "7", "test_unrelated.py")
    unrelated.assert_outcomes(passed=1)
    unrelated.stdout.fnmatch_lines(["other timeout: 7"])
    result = tipc_run.run("-p", "no:timeout", "-p", "timeout_plugin", "--timeout", "9", "--tipc-timeout", "all=60")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["other timeout: 9"])


@pytest.mark.parametrize("where", ["plugin", "conftest"])
def test_config_and_mode_of_another_plugin_leave_tipc_reachable_by_its_prefix(tipc_run, where):
    """A ``-p`` plugin declares its options before tipc's; a conftest after: pytest starts either way."""
    pytester = tipc_run.pytester
    if where == "plugin":
        pytester.makepyfile(config_plugin=CONFIG_PLUGIN)
        pytester.syspathinsert()
        extra = ["-p", "config_plugin"]
    else:
        pytester.makeconftest(CONFIG_PLUGIN)
        extra = ["--rootdir", str(pytester.path)]
    pytester.makepyfile(test_unrelated="def test_ok():\n    pass\n")
    unrelated = pytester.runpytest(*extra, "--config", "theirs.toml", "test_unrelated.py")
    unrelated.assert_outcomes(passed=1)
    unrelated.stdout.fnmatch_lines(
        [
            "tipc: another plugin owns --config (options 'theirs'), --mode (options 'theirs'); tipc's: --tipc-config, --tipc-mode"
        ]
    )
    args = tipc_run.args("--collect-only", "-q")
    args[args.index("--config")] = "--tipc-config"
    args[args.index("--mode")] = "--tipc-mode"
    result = pytester.runpytest(*extra, *args)
    assert result.ret == 0
    assert sum("::" in line for line in result.outlines) == 5


def test_the_prefixed_config_and_mode_always_work(tipc_run):
    args = tipc_run.args("--collect-only", "-q")
    args[args.index("--config")] = "--tipc-config"
    args[args.index("--mode")] = "--tipc-mode"
    result = tipc_run.pytester.runpytest(*args)
    assert result.ret == 0 and sum("::" in line for line in result.outlines) == 5


def test_settings_from_pytests_ini_and_tool_tipc_below_the_environment_and_the_command_line(tipc_run, monkeypatch):
    pytester = tipc_run.pytester
    (pytester.path / "pyproject.toml").write_text('[tool.tipc]\nreport_dir = "from-pyproject"\nhang_timeout = 600\n')
    result = tipc_run.run()
    result.stdout.fnmatch_lines(["tipc: report: */from-pyproject/fake_rec/*/index.html"])
    notes = json.loads((tipc_run.out() / "run.json").read_text())["notes"]
    assert f"setting --hang-timeout: from {pytester.path / 'pyproject.toml'} [tool.tipc]" in notes
    pytester.makeini("[pytest]\ntipc_report_dir = from-ini\n")
    tipc_run.run().stdout.fnmatch_lines(["tipc: report: */from-ini/fake_rec/*/index.html"])
    monkeypatch.setenv("TIPC_REPORT_DIR", "from-env")
    tipc_run.run().stdout.fnmatch_lines(["tipc: report: */from-env/fake_rec/*/index.html"])
    tipc_run.run("--tipc-report-dir", "typed").stdout.fnmatch_lines(["tipc: report: */typed/fake_rec/*/index.html"])


def test_pytest_repeats_count_is_refused_with_what_to_do(tipc_run):
    tipc_run.pytester.makepyfile(
        repeat="def pytest_addoption(parser):\n    parser.addoption('--count', type=int, default=1)\n"
    )
    tipc_run.pytester.syspathinsert()
    result = tipc_run.run("-p", "repeat", "--count", "3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--count 3 (pytest-repeat) runs each stage again right after itself*"])
