"""``tipc golden update`` and golden checks under ``tipc run``: goldens written from runs, exit codes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from tests.support.fake_target import CPU_CONFIG
from tipc.cli.main import main

MODE = "lite_train_lite_infer"
STEM = Path(CPU_CONFIG).stem


def run_argv(repo: Path, *extra: str) -> list[str]:
    return ["--config", str(repo / CPU_CONFIG), "--mode", MODE, "--python", sys.executable, "--no-report", *extra]


@pytest.fixture
def tipc(capsys):
    """``tipc(command, *argv) -> (exit code, stdout, stderr)``, in process, every command registered."""

    def call(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return call


def results(repo: Path) -> Path:
    return repo / "test_tipc" / "output" / "fake_rec" / MODE


def test_update_from_a_run_then_the_next_run_passes_its_check(fake_repo, tipc):
    assert tipc("run", *run_argv(fake_repo))[0] == 0  # no golden/ beside the config yet: no golden check
    code, out, _ = tipc("golden", "update", "--from", str(results(fake_repo)))
    written = fake_repo / "configs" / "fake_rec" / "golden" / STEM / f"{MODE}_fp32.yaml"
    assert code == 0 and out.splitlines() == [str(written)]
    assert f"# {Path(CPU_CONFIG).name} in {MODE}, from run(s) 20" in written.read_text()
    doc = yaml.safe_load(written.read_text())
    assert doc["predictions"]["word_0.png"] == {"text": "fake", "score": 0.5}
    assert doc["train"]["loss_drop"] == 0.25  # fake losses 10 → 5: half the drop measured
    code, out, _ = tipc("run", *run_argv(fake_repo))
    assert code == 0 and "6 passed" in out


def test_update_from_several_runs_keeps_default_tolerances_when_they_agree(fake_repo, tipc, tmp_path):
    assert tipc("run", *run_argv(fake_repo))[0] == 0
    first = tmp_path / "first"
    results(fake_repo).rename(first)
    assert tipc("run", *run_argv(fake_repo))[0] == 0
    code, out, _ = tipc(
        "golden", "update", "--from", str(first), str(results(fake_repo)), "--golden-dir", str(tmp_path / "g")
    )
    assert code == 0
    doc = yaml.safe_load(Path(out.strip()).read_text())
    assert doc["tolerance"] == {"score": 0.001, "metric": 0.001, "box": 1.0, "fraction": 0.001}


def test_update_refuses_folders_of_different_modes(fake_repo, tipc, tmp_path):
    assert tipc("run", *run_argv(fake_repo))[0] == 0
    other = tmp_path / "other"
    results(fake_repo).rename(other)
    (other / "run.json").write_text((other / "run.json").read_text().replace(MODE, "whole_infer"))
    assert tipc("run", *run_argv(fake_repo))[0] == 0
    code, _, err = tipc("golden", "update", "--from", str(results(fake_repo)), str(other))
    assert code == 2 and "give results folders of one config and mode" in err


def test_golden_findings_exit_1_unless_fail_on_leaves_golden_out(fake_repo, tipc, tmp_path):
    folder = tmp_path / "goldens" / STEM
    folder.mkdir(parents=True)
    (folder / f"{MODE}.yaml").write_text("predictions:\n  word_2.png: {text: other, score: 0.5}\n")
    code, out, err = tipc("run", *run_argv(fake_repo, "--golden-dir", str(tmp_path / "goldens")))
    assert code == 1 and "5 passed, 1 failed" in out
    assert "word_2.png: expected text 'other', found text 'fake'" in err
    code, out, _ = tipc(
        "run", *run_argv(fake_repo, "--golden-dir", str(tmp_path / "goldens"), "--fail-on", "regression")
    )
    assert code == 0 and "5 passed, 1 differs" in out


def test_a_golden_dir_that_is_not_there_is_a_usage_error(fake_repo, tipc, tmp_path):
    code, _, err = tipc("run", *run_argv(fake_repo, "--golden-dir", str(tmp_path / "nowhere")))
    assert code == 2 and "--golden-dir" in err and "not a directory" in err


def test_the_plan_shows_the_check(fake_repo, tipc, tmp_path):
    code, out, _ = tipc(
        "plan",
        "--config",
        str(fake_repo / CPU_CONFIG),
        "--mode",
        MODE,
        "--golden-dir",
        str(tmp_path),
        "--format",
        "json",
    )
    assert code == 0 and '"norm_train-gpus_-1-fp32::golden"' in out and f'"golden_dir": "{tmp_path}"' in out
    code, out, _ = tipc("plan", "--config", str(fake_repo / CPU_CONFIG), "--mode", MODE, "--golden-dir", str(tmp_path))
    assert f"norm_train-gpus_-1-fp32::golden\n  check: goldens in {tmp_path} (in the harness, no process)" in out
