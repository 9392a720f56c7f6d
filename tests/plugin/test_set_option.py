"""``--tipc-set KEY=VALUE`` on the pytest front: the run reads the changed value, and ``run.json`` records it."""

from __future__ import annotations

import json


def test_a_set_value_is_what_the_stage_runs_and_run_json_records_it(tipc_run):
    result = tipc_run.run("--tipc-set", "Train.loader.batch_size_per_card=2", "--tipc-set", "Global.epoch_num=3")
    assert result.ret == 0, result.outlines[-5:]
    run = json.loads((tipc_run.out() / "run.json").read_text())
    assert run["overrides"]["--set"] == "Train.loader.batch_size_per_card=2 Global.epoch_num=3"
    assert any(n.startswith("--set Global.epoch_num: line 7 reads '3'") for n in run["notes"])
    (train,) = [r for r in tipc_run.records() if r["kind"] == "train"]
    assert "Global.epoch_num=3" in train["argv"]


def test_an_unknown_key_stops_the_run_naming_the_nearest(tipc_run):
    result = tipc_run.run("--tipc-set", "Global.epoch_nums=3")
    assert result.ret != 0
    result.stdout.fnmatch_lines(
        ["*--tipc-set Global.epoch_nums: no line of this config has that key*Global.epoch_num*"]
    )
