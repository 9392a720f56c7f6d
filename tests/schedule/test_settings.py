"""The schedule options through a front: what they resolve to, and the message for a bad one (exit 2)."""

from __future__ import annotations

import argparse
import sys

import pytest

from tipc.cli.main import main
from tipc.cluster.group import SOURCES
from tipc.schedule.policy import AUTO, Schedule, Shard
from tipc.session.options import add_options
from tipc.session.settings import resolve_settings

from .plans import CONFIG_DIR, MODE, variant

GROUP_VARIABLES = [name for name, _ in SOURCES]


@pytest.fixture
def config(fake_repo):
    path = fake_repo / CONFIG_DIR / "s.txt"
    path.write_text(variant({"model_name": "s"}))
    return path


def schedule_of(config, *extra: str) -> Schedule:
    parser = argparse.ArgumentParser()
    add_options(parser.add_argument)
    ns = parser.parse_args(["--config", str(config), "--mode", MODE, "--python", sys.executable, *extra])
    settings = resolve_settings(lambda dest: getattr(ns, dest))
    assert settings is not None
    return settings.schedule


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ((), Schedule()),
        (("--jobs", "4"), Schedule(jobs=4)),
        (("--mem-per-chain", "2G"), Schedule(jobs=AUTO, mem_per_chain_mb=2048.0)),
        (("--jobs", "2", "--mem-per-chain", "512M"), Schedule(jobs=2, mem_per_chain_mb=512.0)),
        (("--gpus-available", "0,1"), Schedule(gpus=("0", "1"))),
        (("--shard", "2/3", "--run-group", "n1"), Schedule(shard=Shard(2, 3), run_group="n1")),
        (
            ("--shard", "2/3", "SLURM_ARRAY_JOB_ID=41", "SLURM_JOB_ID=43"),
            Schedule(shard=Shard(2, 3), run_group="slurm-41"),
        ),
        (("GITHUB_RUN_ID=7", "CI_PIPELINE_ID=9"), Schedule(run_group="github-7")),
        (("CI_PIPELINE_ID=9",), Schedule(run_group="gitlab-9")),
        (("--run-group", "n2", "TIPC_RUN_GROUP=n3"), Schedule(run_group="n2")),
    ],
    ids=[
        "default-serial",
        "jobs",
        "mem-implies-auto",
        "both",
        "gpus-alone-stays-serial",
        "shard",
        "slurm-array",
        "github-before-gitlab",
        "gitlab",
        "option-before-env",
    ],
)
def test_options_resolve(config, monkeypatch, extra, expected):
    for name in GROUP_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for item in [e for e in extra if "=" in e]:
        monkeypatch.setenv(*item.split("=", 1))
    extra = tuple(e for e in extra if "=" not in e)
    monkeypatch.delenv("TIPC_GPUS_AVAILABLE", raising=False)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setattr("tipc.schedule.devices.NVIDIA_GPUS", config.parent / "no-driver")
    assert schedule_of(config, *extra) == expected


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--jobs", "0"), "--jobs '0': expected a number of chains (1 or more) or 'auto'"),
        (("--mem-per-chain", "lots"), "--mem-per-chain 'lots': expected a size such as 6G"),
        (("--gpus-available", "0,0"), "--gpus-available '0,0': expected distinct GPU ids"),
        (("--shard", "3/2"), "--shard '3/2': expected K/N with 1 <= K <= N"),
        (("--shard", "1/2"), "--shard: no run group says which night this shard belongs to; pass --run-group ID"),
        (("--run-group", "../x"), "--run-group '../x': expected an id of letters, digits"),
        (
            ("--jobs", "2", "--ips", "127.0.0.2,127.0.0.3", "--node-rank", "0", "--start-port", "17000"),
            "--jobs/--mem-per-chain/--shard: not on a multi-node run",
        ),
    ],
    ids=["jobs", "size", "gpus", "shard", "shard-without-group", "bad-group", "multi-node"],
)
def test_bad_options_exit_2_naming_the_option(config, capsys, monkeypatch, extra, message):
    for name in GROUP_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    assert main(["run", "--config", str(config), "--mode", MODE, "--python", sys.executable, *extra]) == 2
    assert message in capsys.readouterr().err
