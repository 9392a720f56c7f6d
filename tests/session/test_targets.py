"""resolve_settings over several configs: a config's trouble is its own problem, the options' the run's."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from tests.support.fake_target import FAKE_TARGET
from tipc.errors import SettingsError
from tipc.session.options import add_options
from tipc.session.problems import ProblemKind
from tipc.session.settings import resolve_settings

CPU = "train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"
DCU = "train_linux_dcu_normal_normal_infer_python_dcu.txt"
FLEET = "train_linux_cpu_fleet_normal_infer_python_linux_cpu.txt"


@pytest.fixture
def configs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake target's CPU config, an empty DCU one and a two-node fleet one, side by side."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "zoo"
    folder.mkdir()
    text = (FAKE_TARGET / "configs/fake_rec" / CPU).read_text()
    (folder / CPU).write_text(text)
    (folder / DCU).write_text("")
    (folder / FLEET).write_text(text.replace("gpu_list:-1", "gpu_list:192.168.0.1,192.168.0.2;0,1"))
    (folder / "target.yaml").write_text(f"repo: {FAKE_TARGET}\n")
    return folder


def settings(*argv: str):
    parser = argparse.ArgumentParser()
    add_options(parser.add_argument)
    args = parser.parse_args([*argv, "--mode", "lite_train_lite_infer"])
    return resolve_settings(lambda dest: getattr(args, dest), Path.cwd())


def test_a_directory_gives_targets_and_problems(configs):
    s = settings("--config", str(configs))
    assert [t.display for t in s.targets] == [f"zoo/{CPU}"]  # relative to the current directory
    assert [(p.display, p.kind) for p in s.problems] == [
        (f"zoo/{FLEET}", ProblemKind.NOT_APPLICABLE),
        (f"zoo/{DCU}", ProblemKind.ERROR),
    ]
    fleet, empty = s.problems
    assert (
        empty.reason == f"{configs / DCU}: empty file: expected a TIPC config starting with the 'train_params' header"
    )
    assert fleet.reason.startswith("on a single node: it trains on 2 nodes (192.168.0.1,192.168.0.2, its gpu_list)")
    assert fleet.mode == "lite_train_lite_infer"


def test_no_config_that_runs_still_gives_settings(configs):
    s = settings("--config", str(configs / DCU))
    assert (s.targets, [p.kind for p in s.problems]) == ((), [ProblemKind.ERROR])


def test_host_at_odds_with_the_configs_list_is_that_configs_error(configs):
    s = settings("--config", str(configs), "--host", "10.9.9.9")
    (fleet,) = (p for p in s.problems if p.path.name == FLEET)
    assert fleet.kind is ProblemKind.ERROR and "--host=10.9.9.9 is not in the node list" in fleet.reason


def test_a_bad_target_yaml_is_the_configs_error(configs):
    (configs / "target.yaml").write_text("repo: [\n")
    s = settings("--config", str(configs / CPU))
    (problem,) = s.problems
    assert problem.kind is ProblemKind.ERROR and "target.yaml" in problem.reason


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--ips", "127.0.0.2,127.0.0.3", "--host", "10.9.9.9"), "--host=10.9.9.9 is not in the node list"),
        (("--ips", "1.2.3"), "'1.2.3' is not an IPv4 address"),
        (("--repo", "missing"), "--repo missing: not a directory"),
    ],
    ids=["host-outside-the-ips-option", "ips-spelling", "repo"],
)
def test_the_runs_own_options_stay_the_runs_error(configs, argv, message):
    with pytest.raises(SettingsError, match=message):
        settings("--config", str(configs), *argv)
