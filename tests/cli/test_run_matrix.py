"""``tipc run`` over several configs: a line per config that cannot run, the others run, exit 1, a matrix."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.support.fake_target import CPU_CONFIG
from tests.support.htmlq import parse
from tipc.cli.main import main

MODE = "lite_train_lite_infer"
EMPTY = "train_linux_dcu_normal_normal_infer_python_dcu.txt"
FLEET = "train_linux_cpu_fleet_normal_infer_python_linux_cpu.txt"


def test_bad_configs_are_named_the_others_run_and_the_matrix_says_it_all(fake_repo, capsys):
    folder = fake_repo / CPU_CONFIG.rpartition("/")[0]
    (folder / EMPTY).write_text("")
    text = (fake_repo / CPU_CONFIG).read_text().replace("gpu_list:-1", "gpu_list:192.168.0.1,192.168.0.2;0,1")
    (folder / FLEET).write_text(text.replace("model_name:fake_rec\n", "model_name:fake_rec_fleet\n"))
    reports = fake_repo / "reports"
    code = main(
        ["run", "--config", str(folder), "--mode", MODE, "--python", sys.executable, "--report-dir", str(reports)]
    )
    out, err = capsys.readouterr()
    assert code == 1
    problems = [line for line in err.splitlines() if line.startswith("tipc: ") and ".txt: " in line]
    assert [line.split(": ")[2] for line in problems] == ["not applicable", "could not be planned"]
    assert f"{folder / EMPTY}: empty file" in problems[1]
    for model in ("fake_rec", "fake_rec_amp"):
        results = fake_repo / "test_tipc/output" / model / MODE / "results.jsonl"
        assert {json.loads(line)["status"] for line in results.read_text().splitlines()} == {"passed"}
    lines = out.splitlines()
    assert lines[-1] == "tipc: 4 configs: 2 planned, 1 could not be planned, 1 not applicable here"
    (matrix,) = [Path(line.removeprefix("tipc: matrix report: ")) for line in lines if line.startswith("tipc: matrix")]
    assert matrix.parent.parent == reports / "matrix"
    verdicts = [tr.attrs["data-verdict"] for tr in parse(matrix.read_text()).find("tbody").find_all("tr")]
    assert sorted(verdicts) == ["error", "not applicable", "passed", "passed"]
