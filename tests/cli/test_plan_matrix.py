"""``tipc plan`` over several configs: a line (or JSON object) per config, errors and all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.config_text import config_text
from tipc.cli.plan_summary import summary_line, summary_object
from tipc.dialects.paddleocr.config import load_config
from tipc.dialects.paddleocr.plan import build_plan
from tipc.plan import PlanOptions
from tipc.session.problems import ConfigProblem, ProblemKind

MODE = "lite_train_lite_infer"
GOOD = "train_linux_gpu_normal_normal_infer_python_linux_gpu_cpu.txt"
EMPTY = "train_linux_dcu_normal_normal_infer_python_dcu.txt"
FLEET = "train_linux_gpu_fleet_normal_infer_python_linux_gpu_cpu.txt"


@pytest.fixture
def tipc(command, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    return command("plan")


@pytest.fixture
def zoo(tmp_path: Path) -> Path:
    directory = tmp_path / "test_configs" / "rec"
    directory.mkdir(parents=True)
    (directory / GOOD).write_text(config_text(gpu_list="gpu_list:0"))
    (directory / EMPTY).write_text("")
    (directory / FLEET).write_text(config_text(gpu_list="gpu_list:192.168.0.1,192.168.0.2;0,1"))
    return directory


def test_one_line_per_config_and_exit_1_for_errors(tipc, zoo):
    code, out, err = tipc("--config", "rec", "--mode", MODE, "--python", "py", "--device", "gpu")
    assert (code, err) == (1, "")
    assert out.splitlines() == [  # a directory's configs sorted by path
        f"rec/{EMPTY}: error: {zoo / EMPTY}: empty file: expected a TIPC config starting with the 'train_params' header",
        f"rec/{FLEET}: not applicable: on a single node: it trains on 2 nodes (192.168.0.1,192.168.0.2, its gpu_list) "
        "and this run has no node list; start the same command on each of them with --ips 192.168.0.1,192.168.0.2 "
        "--host <that node's address>",
        f"rec/{GOOD}: rec lite_train_lite_infer: 1 chain, 4 stages, 2 notes",
        "tipc: 3 configs: 1 planned, 1 could not be planned, 1 not applicable here",
    ]


def test_json_lists_an_object_per_config(tipc, zoo):
    code, out, _ = tipc("--config", "rec", "--mode", MODE, "--python", "py", "--device", "gpu", "--format", "json")
    empty, fleet, good = json.loads(out)
    assert code == 1
    assert good == {"config": f"rec/{GOOD}", "model": "rec", "mode": MODE, "chains": 1, "stages": 4, "notes": 2}
    assert set(empty) == {"config", "mode", "error"} and set(fleet) == {"config", "mode", "not_applicable"}


def test_tags_leave_the_bad_ones_out(tipc, zoo):
    code, out, _ = tipc("--config", "rec", "--config", f"rec/{GOOD}", "--tags", "linux_gpu,normal", "--mode", MODE)
    assert code == 0  # one config once (named twice): its whole plan, as always
    assert out.startswith("model rec, mode lite_train_lite_infer: 3 stages")


def test_one_multi_node_config_says_how_it_would_run(tipc, zoo):
    code, out, _ = tipc("--config", f"rec/{FLEET}", "--mode", MODE)
    assert code == 0
    assert out.startswith(f"tipc: rec/{FLEET}: not applicable: on a single node: it trains on 2 nodes")


def test_one_bad_config_is_still_exit_2(tipc, zoo):
    code, out, err = tipc("--config", f"rec/{EMPTY}", "--mode", MODE)
    assert (code, out) == (2, "")
    assert (
        err
        == f"tipc: error: {zoo / EMPTY}: empty file: expected a TIPC config starting with the 'train_params' header\n"
    )


def test_summary_of_a_plan_and_of_problems(zoo):
    plan = build_plan(load_config(str(zoo / GOOD)), PlanOptions(MODE, repo=str(zoo), python="py", device="gpu"))
    problem = ConfigProblem(zoo / EMPTY, "e.txt", MODE, ProblemKind.ERROR, "e.txt: empty file")
    assert summary_line("g.txt", plan) == "g.txt: rec lite_train_lite_infer: 1 chain, 4 stages, 1 note"
    assert summary_line("e.txt", problem) == "e.txt: error: e.txt: empty file"
    assert summary_object("e.txt", problem) == {"config": "e.txt", "mode": MODE, "error": "e.txt: empty file"}
