"""resolve_settings: options → PlanOptions and RunSettings, one table."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from tipc.compat import shim_path
from tipc.errors import SettingsError
from tipc.plugin.collect import keyword_for
from tipc.session.options import add_options
from tipc.session.settings import CHECKOUT, check_interpreters, display_name, resolve_settings

FAKE = Path(__file__).resolve().parents[1] / "fake_target"
CPU = FAKE / "configs/fake_rec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"


def settings(*argv: str, cwd: Path = FAKE):
    parser = argparse.ArgumentParser()
    add_options(parser.add_argument)
    args = parser.parse_args(argv)
    return resolve_settings(lambda dest: getattr(args, dest), cwd)


def test_inert_without_config():
    assert settings("--mode", "lite_train_lite_infer") is None


def test_defaults_from_target_yaml_and_mode():
    s = settings("--config", str(CPU), "--mode", "whole_infer")
    (target,) = s.targets
    assert target.options.repo == str(FAKE)  # target.yaml: repo: ../..
    assert target.options.mode == "whole_infer" and target.options.python is None
    assert s.run.limits.timeout("infer") == 7200 and s.run.limits.hang is None
    assert not s.run.dry_run and not s.live
    assert s.run.overrides == {"--config": str(CPU), "--mode": "whole_infer"}


@pytest.mark.parametrize(
    ("argv", "check"),
    [
        (
            ("--timeout", "all=5", "--timeout", "train=60"),
            lambda s: (s.run.limits.timeout("train"), s.run.limits.timeout("infer")) == (60, 5),
        ),
        (("--hang-timeout", "30"), lambda s: s.run.limits.hang == 30),
        (("--python", "/opt/py"), lambda s: s.targets[0].options.python == "/opt/py"),
        (("--output-root", "./elsewhere"), lambda s: s.targets[0].options.output_root == "./elsewhere"),
        (("--repo", "."), lambda s: s.targets[0].options.repo == str(FAKE)),
        (("--dry-run", "--live"), lambda s: s.run.dry_run and s.live),
        (("--device", "cpu"), lambda s: s.targets[0].options.device == "cpu"),
        (("--python", "venv/bin/python"), lambda s: s.targets[0].options.python == str(FAKE / "venv/bin/python")),
        (("--python", "python3.11"), lambda s: s.targets[0].options.python == "python3.11"),
        (
            ("--ips", "127.0.0.2,127.0.0.3", "--node-rank", "1", "--start-port", "17100"),
            lambda s: (s.targets[0].node.multi_node, s.targets[0].options.node_rank, s.run.node_rank) == (True, 1, 1),
        ),
        ((), lambda s: not s.targets[0].node.multi_node and s.targets[0].options.node_rank is None),
        ((), lambda s: s.report and s.report_dir is None and s.run.pythonpath == ()),
        (("--report-dir", "out/reports"), lambda s: s.report_dir == FAKE / "out/reports"),
        (("--no-report",), lambda s: not s.report),
        (("--autolog-shim",), lambda s: s.run.pythonpath == (shim_path(),)),
    ],
    ids=[
        "timeouts-all-then-kind",
        "hang",
        "python",
        "output-root",
        "repo",
        "dry-run-live",
        "device",
        "relative-python-made-absolute",
        "python-name-left-to-path",
        "multi-node-context",
        "single-node-context",
        "report-defaults",
        "report-dir",
        "no-report",
        "autolog-shim",
    ],
)
def test_options_map_to_settings(argv, check):
    assert check(settings("--config", str(CPU), "--mode", "lite_train_lite_infer", *argv))


def shim(tmp_path: Path, name: str = "python3.7") -> Path:
    """A ``python3.7`` on PATH that cannot run, as pyenv and conda shims are when the version is absent."""
    path = tmp_path / name
    # pyenv's own shape: the line that says why first, advice after it (the last line says nothing)
    path.write_text(
        "#!/bin/sh\necho 'pyenv: python3.7: command not found' >&2\necho >&2\n"
        "echo 'The python3.7 command exists in these Python versions: 3.7.17' >&2\n"
        "echo 'Note: see pyenv help global for letting both be' >&2\necho '      found at the same time.' >&2\nexit 127\n"
    )
    path.chmod(0o755)
    return path


@pytest.mark.parametrize(
    ("python", "message"),
    [
        (
            "/no/such/python",
            "--python /no/such/python: does not exist or is not executable; give an interpreter "
            "that runs, e.g. --python ",
        ),
        ("SHIM", "but cannot run: exit 127: pyenv: python3.7: command not found"),
    ],
    ids=["missing", "broken-shim"],
)
def test_python_that_cannot_run_is_refused_with_the_fix(tmp_path, python, message):
    python = str(shim(tmp_path)) if python == "SHIM" else python
    resolved = settings("--config", str(CPU), "--mode", "lite_train_lite_infer", "--python", python)
    with pytest.raises(SettingsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_interpreters(resolved)


def test_config_interpreter_that_cannot_run_falls_back_with_a_note(tmp_path, monkeypatch):
    import sys

    from tipc.dialects.paddleocr.config import load_config
    from tipc.dialects.paddleocr.plan import build_plan
    from tipc.plan import PlanOptions
    from tipc.run.probe import cannot_run

    shim(tmp_path)
    monkeypatch.setenv("PATH", f"{tmp_path}:{__import__('os').environ['PATH']}")
    text = CPU.read_text().replace("python:python3\n", "python:python3.7\n", 1)
    config = tmp_path / "c.txt"
    config.write_text(text)
    plan = build_plan(load_config(str(config)), PlanOptions("lite_train_lite_infer", repo=str(FAKE)), cannot_run)
    assert plan.python == sys.executable
    assert any(
        note.startswith(
            f"python: {sys.executable} (the config's 'python3.7' (line 3) is on PATH "
            f"({tmp_path}/python3.7) but cannot run: exit 127: pyenv: python3.7: command not found"
        )
        for note in plan.notes
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--config", str(CPU)), "--mode (missing): --config needs --mode"),
        (("--config", "nope.txt", "--mode", "whole_infer"), "--config nope.txt: config not found: tried 'nope.txt'"),
        (("--config", str(CPU), "--mode", "whole_infer", "--timeout", "train"), "expected KIND=SECONDS"),
        (("--config", str(CPU), "--mode", "whole_infer", "--repo", "missing"), "--repo missing: not a directory"),
    ],
    ids=["no-mode", "no-config", "timeout-shape", "bad-repo"],
)
def test_bad_options(argv, message):
    with pytest.raises(SettingsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        settings(*argv)


def test_display_name_relative_to_test_configs(tmp_path):
    assert (
        display_name(CHECKOUT / "test_configs/PP-OCRv3_mobile_rec/train_infer_python.txt", tmp_path)
        == "PP-OCRv3_mobile_rec/train_infer_python.txt"
    )
    assert display_name(CPU, FAKE) == "configs/fake_rec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"


@pytest.mark.parametrize(
    ("chain", "expression"),
    [
        ("norm_train-gpus_-1-fp32", "norm_train-gpus_-1-fp32"),
        ("norm_train-gpus_0,1-fp32", "norm_train-gpus_0 and 1-fp32"),
        ("infer_model_0", "infer_model_0"),
    ],
    ids=["plain", "comma", "whole-infer"],
)
def test_keyword_for_chain(chain, expression):
    assert keyword_for(chain) == expression


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("typed", "--jobs 'x': expected a number of chains"),
        ("environment", "TIPC_JOBS (environment): --jobs 'x': expected a number of chains"),
        ("pyproject", "{tmp}/pyproject.toml [tool.tipc] jobs: --jobs 'x': expected a number of chains"),
        ("env-hang", "TIPC_HANG_TIMEOUT (environment): --timeout/--hang-timeout: expected a number of seconds"),
    ],
)
def test_a_bad_value_names_where_it_was_written(tmp_path, monkeypatch, where, message):
    """A value the user never typed is named by the variable, or the file and key, that gave it."""
    argv = ["--config", str(CPU), "--mode", "lite_train_lite_infer"]
    if where == "typed":
        argv += ["--jobs", "x"]
    elif where == "environment":
        monkeypatch.setenv("TIPC_JOBS", "x")
    elif where == "env-hang":
        monkeypatch.setenv("TIPC_HANG_TIMEOUT", "x")
    else:
        (tmp_path / "pyproject.toml").write_text('[tool.tipc]\njobs = "x"\n')
    with pytest.raises(SettingsError) as raised:
        settings(*argv, cwd=tmp_path)
    assert str(raised.value).startswith(message.format(tmp=tmp_path))
