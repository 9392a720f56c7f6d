"""``tipc run`` while a stage runs, off a terminal: a heartbeat line every ``--heartbeat`` seconds; none with ``-q``."""

from __future__ import annotations

import sys

import pytest

from tests.support.fake_target import CPU_CONFIG
from tipc.cli.main import main

MODE = "lite_train_lite_infer"
TRAIN = "tipc: still running fake_rec: norm_train-gpus_-1-fp32::train: "


@pytest.mark.parametrize(("extra", "beats"), [((), True), (("-q",), False)], ids=["heartbeat", "quiet"])
def test_a_heartbeat_names_the_running_stage_unless_quiet(fake_repo, capsys, monkeypatch, extra, beats):
    monkeypatch.setenv("TIPC_FAKE", "train:sleep=1.5")
    argv = ["run", "--config", str(fake_repo / CPU_CONFIG), "--mode", MODE, "--python", sys.executable]
    assert main([*argv, "--no-report", "--heartbeat", "1", *extra]) == 0
    out = capsys.readouterr().out
    assert ("still running" in out) is beats, out
    if beats:  # a line of its own, while train runs, before its status line
        assert out.splitlines()[0].startswith(f"{TRAIN}1s [0/5 stages done"), out
