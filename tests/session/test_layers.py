"""Settings below the command line: environment > file (pytest ini, then ``[tool.tipc]``) > default."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from tipc.errors import SettingsError
from tipc.metrics.noise import MinEffect
from tipc.session.layers import env_layer, ini_layer, layered, pyproject_layer
from tipc.session.options import add_options
from tipc.session.settings import resolve_settings

FAKE = Path(__file__).resolve().parents[1] / "fake_target"
CPU = FAKE / "configs/fake_rec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"
PYPROJECT = """
[project]
name = "a-target"

[tool.tipc]
timeout = ["train=60"]
hang_timeout = 30
report_dir = "from-file"
fail_on = ["regression"]
jobs = "2"
"""


def command_line(*argv: str):
    parser = argparse.ArgumentParser()
    add_options(parser.add_argument)
    args = parser.parse_args(["--config", str(CPU), "--mode", "whole_infer", *argv])
    return lambda dest: getattr(args, dest)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    return tmp_path


@pytest.mark.parametrize(
    ("argv", "env", "ini", "expected"),
    [
        ((), {}, {}, {"tipc_timeout": ["train=60"], "tipc_hang_timeout": "30", "tipc_report_dir": "from-file"}),
        (
            (),
            {"TIPC_HANG_TIMEOUT": "5", "TIPC_TIMEOUT": "train=7 all=9"},
            {},
            {"tipc_timeout": ["train=7", "all=9"], "tipc_hang_timeout": "5", "tipc_report_dir": "from-file"},
        ),
        ((), {}, {"tipc_report_dir": "from-ini"}, {"tipc_report_dir": "from-ini", "tipc_hang_timeout": "30"}),
        (
            ("--hang-timeout", "1", "--report-dir", "cli"),
            {"TIPC_HANG_TIMEOUT": "5", "TIPC_REPORT_DIR": "env"},
            {"tipc_report_dir": "from-ini"},
            {"tipc_hang_timeout": "1", "tipc_report_dir": "cli", "tipc_jobs": "2"},
        ),
        ((), {"TIPC_STAGE_PYTHON": "/opt/py", "TIPC_PYTHON": "/not/this"}, {}, {"tipc_python": "/opt/py"}),
        ((), {"TIPC_NO_REPORT": "yes", "TIPC_DOCTOR": "0"}, {}, {"tipc_no_report": True, "tipc_doctor": False}),
    ],
    ids=["file", "env-over-file", "ini-over-pyproject", "command-line-over-all", "stage-python", "switches"],
)
def test_precedence(repo, argv, env, ini, expected):
    getini = {**dict.fromkeys(["tipc_" + k for k in ("report_dir", "hang_timeout")], ""), **ini}.get
    layers = [env_layer(env), ini_layer(lambda key: getini(key, ""), "tox.ini"), pyproject_layer(repo)]
    get, sources = layered(command_line(*argv), layers)
    assert {dest: get(dest) for dest in expected} == expected
    if argv:
        assert sources["--hang-timeout"] == "command line"
    elif "TIPC_HANG_TIMEOUT" in env:
        assert sources["--hang-timeout"] == "environment"
    else:
        assert sources["--hang-timeout"] == f"{repo / 'pyproject.toml'} [tool.tipc]"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[tool.tipc]\ntimeuot = 3\n",
            "[tool.tipc] timeuot: not a setting; expected one of autolog_shim, bisect_budget, device,",
        ),
        ("[tool.tipc]\nno_report = 'maybe'\n", "[tool.tipc] no_report: 'maybe': expected true or false"),
        ("[tool.tipc]\ndevice = 'tpu'\n", "[tool.tipc] device: 'tpu': expected one of auto, cpu, gpu"),
        ("[tool.tipc]\ntimeout = [1]\n", "[tool.tipc] timeout: [1]: expected a list of strings"),
        ("[tool.tipc\n", "cannot read [tool.tipc]: "),
    ],
    ids=["unknown-key", "bad-bool", "bad-choice", "bad-list", "bad-toml"],
)
def test_a_bad_file_names_file_key_and_what_was_expected(tmp_path, text, message):
    (tmp_path / "pyproject.toml").write_text(text)
    with pytest.raises(SettingsError) as caught:
        pyproject_layer(tmp_path)
    assert str(tmp_path / "pyproject.toml") in str(caught.value) and message in str(caught.value)


def test_the_settings_record_where_each_value_came_from(repo, monkeypatch):
    monkeypatch.setenv("TIPC_NOISE_K", "4")
    settings = resolve_settings(command_line("--repo", str(repo), "--hang-timeout", "3"), cwd=repo)
    assert settings.run.limits.hang == 3 and settings.run.limits.timeout("train") == 60
    assert settings.report_dir == repo / "from-file" and settings.trends.k == 4
    assert settings.fail_on == frozenset({"regression"}) and settings.schedule.jobs == 2
    notes = settings.targets[0].options.notes
    assert f"setting --timeout: from {repo / 'pyproject.toml'} [tool.tipc]" in notes
    assert "setting --noise-k: from environment" in notes
    assert not any("--hang-timeout" in note for note in notes)  # typed: no note
    assert settings.run.overrides["--timeout"] == "train=60"


def test_tipc_plan_notes_say_where_a_setting_came_from(tmp_path, monkeypatch, capsys):
    from tipc.cli.main import main

    (tmp_path / "pyproject.toml").write_text('[tool.tipc]\ndevice = "cpu"\n')
    monkeypatch.chdir(tmp_path)
    assert main(["plan", "--config", str(CPU), "--mode", "lite_train_lite_infer"]) == 0
    assert f"setting --device: from {tmp_path / 'pyproject.toml'} [tool.tipc]" in capsys.readouterr().out


def test_paddles_flags_in_the_environment_are_in_the_plans_notes(repo, monkeypatch):
    # FLAGS_enable_pir_api=0 is what lets PaddleClas's and PaddleSeg's predictors run on paddle 3 (docs/suites.md):
    # a verdict that rests on it says so.
    monkeypatch.setenv("FLAGS_enable_pir_api", "0")
    monkeypatch.setenv("FLAGS_use_mkldnn", "1")
    settings = resolve_settings(command_line("--repo", str(repo)), cwd=repo)
    assert "paddle flags from the environment: FLAGS_enable_pir_api=0 FLAGS_use_mkldnn=1" in (
        settings.targets[0].options.notes
    )


def test_without_paddle_flags_there_is_no_flags_note(repo, monkeypatch):
    for name in [n for n in os.environ if n.startswith("FLAGS_")]:
        monkeypatch.delenv(name)
    settings = resolve_settings(command_line("--repo", str(repo)), cwd=repo)
    assert not any("paddle flags" in note for note in settings.targets[0].options.notes)


@pytest.mark.parametrize(
    ("env", "table", "argv", "effects"),
    [
        ("", "", (), MinEffect()),
        ("time=8% memory=3%", "", (), MinEffect(time=0.08, memory=0.03)),
        ("", 'min_effect = ["accuracy=0.5%"]', (), MinEffect(accuracy=0.005)),
        ("time=8%", 'min_effect = ["time=9%"]', (), MinEffect(time=0.08)),  # the environment over the file
        ("time=8%", "", ("--min-effect", "time=10%"), MinEffect(time=0.10)),  # the command line over both
    ],
    ids=["default", "environment", "pyproject", "env-over-file", "command-line-first"],
)
def test_the_minimum_effect_comes_from_every_layer(tmp_path, monkeypatch, env, table, argv, effects):
    (tmp_path / "pyproject.toml").write_text(f"[tool.tipc]\n{table}\n")
    if env:
        monkeypatch.setenv("TIPC_MIN_EFFECT", env)
    settings = resolve_settings(command_line("--repo", str(tmp_path), *argv), cwd=tmp_path)
    assert settings.trends.min_effect == effects
