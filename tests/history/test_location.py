"""Where the history lives: one setting, ``history``, resolved as every other setting is (command line >
environment > pytest's ini > ``[tool.tipc]`` > tipc's choice), by both fronts and by every command
that reads or writes the store."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from tests.cli.test_run_cmd import tipc_run
from tests.support.fake_target import CPU_CONFIG, copy_fake_target
from tipc.cli.main import main
from tipc.history.store import HISTORY_FILE, History, RunFigures
from tipc.session.layers import ini_layer
from tipc.session.options import add_judging_options, add_options
from tipc.session.settings import resolve_history, resolve_settings

MODE = "lite_train_lite_infer"


def command_line(add, *argv: str):
    parser = argparse.ArgumentParser()
    add(parser.add_argument)
    args = parser.parse_args(list(argv))
    return lambda dest: getattr(args, dest)


# (command line, TIPC_HISTORY, pytest ini, [tool.tipc], the file chosen; None: tipc's choice)
PRECEDENCE = [
    ((), None, None, None, None),
    ((), None, None, "from-file.sqlite", "from-file.sqlite"),
    ((), None, "from-ini.sqlite", "from-file.sqlite", "from-ini.sqlite"),
    ((), "from-env.sqlite", "from-ini.sqlite", "from-file.sqlite", "from-env.sqlite"),
    (("--history", "cli.sqlite"), "from-env.sqlite", "from-ini.sqlite", "from-file.sqlite", "cli.sqlite"),
]
IDS = ["tipcs-choice", "pyproject", "ini-over-pyproject", "env-over-ini", "command-line-over-all"]


def pyproject(repo: Path, history: str | None) -> None:
    if history is not None:
        (repo / "pyproject.toml").write_text(f'[tool.tipc]\nhistory = "{history}"\n')


@pytest.mark.parametrize(("argv", "env", "ini", "file", "expected"), PRECEDENCE, ids=IDS)
def test_a_run_takes_the_history_setting_by_the_usual_precedence(tmp_path, monkeypatch, argv, env, ini, file, expected):
    """Both fronts resolve it so (``tipc run --history``, ``pytest tipc --tipc-history``: the same dest)."""
    repo = copy_fake_target(tmp_path / "target")
    pyproject(repo, file)
    if env is not None:
        monkeypatch.setenv("TIPC_HISTORY", env)
    get = command_line(add_options, "--config", str(repo / CPU_CONFIG), "--mode", MODE, *argv)
    getini = {"tipc_history": ini or ""}.get
    settings = resolve_settings(get, repo, ini_layer(lambda key: getini(key, ""), "tox.ini"))
    assert settings is not None
    assert settings.run.history == (None if expected is None else repo / expected)


@pytest.mark.parametrize(("argv", "env", "ini", "file", "expected"), PRECEDENCE, ids=IDS)
def test_report_merge_and_history_take_it_too(tmp_path, argv, env, ini, file, expected):
    """The commands that run no config (``tipc report``, ``tipc merge``, ``tipc history``) have no ini."""
    pyproject(tmp_path, file)
    environ = {} if env is None else {"TIPC_HISTORY": env}
    found = resolve_history(command_line(add_judging_options, *argv), tmp_path, environ)
    wanted = argv[1] if argv else env or file
    assert found == (None if wanted is None else tmp_path / wanted)


@pytest.mark.parametrize("how", ["--history", "--file", "TIPC_HISTORY", "[tool.tipc]"])
def test_tipc_history_finds_the_store_the_setting_names(tmp_path, monkeypatch, capsys, how):
    store = tmp_path / "kept" / "nights.sqlite"
    History(store).record_run("m", MODE, [RunFigures("r1", "m/c.txt", {("c::train", 0, "ips"): 5.0})], [])
    monkeypatch.chdir(tmp_path)
    argv = ["history"]
    if how.startswith("--"):
        argv += [how, "kept/nights.sqlite"]
    elif how == "TIPC_HISTORY":
        monkeypatch.setenv("TIPC_HISTORY", "kept/nights.sqlite")
    else:
        pyproject(tmp_path, "kept/nights.sqlite")
    assert main([*argv, "list"]) == 0
    assert capsys.readouterr().out == f"m\t{MODE}\tm/c.txt\t1 run(s)\tr1 .. r1\n"


def test_a_run_and_its_report_keep_history_only_where_the_setting_says(fake_repo, tmp_path, monkeypatch):
    """The report's figures and summary, the durations the next split reads: all in the one file named."""
    store = tmp_path / "cache" / "nights.sqlite"
    monkeypatch.setenv("TIPC_HISTORY", str(tmp_path / "not-this.sqlite"))
    assert tipc_run(fake_repo, "--history", str(store)) == 0
    history = History(store)
    assert [e.run for e in history.series("fake_rec", MODE)] and history.reports("fake_rec", MODE)
    assert history.measured(MODE)
    assert not (tmp_path / "not-this.sqlite").exists()
    assert list(fake_repo.rglob(HISTORY_FILE)) == []  # nothing beside the results either
