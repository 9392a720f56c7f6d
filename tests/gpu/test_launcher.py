"""The stand-in's ``python -m paddle.distributed.launch``: real worker processes, paddle's variables.

Standard library only: runs everywhere, GPU or not (a GPU worker is only told its id here).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tipc.run.workerlogs import FAILED_RANK, worker_logs

LAUNCHER = Path(__file__).resolve().parents[2] / "examples" / "gpurec" / "launcher"
_SPEC = importlib.util.spec_from_file_location("gpurec_launch", LAUNCHER / "paddle" / "distributed" / "launch.py")
assert _SPEC is not None and _SPEC.loader is not None
launch = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(launch)

SHOW_ENV = """
import os, sys
names = ("PADDLE_TRAINER_ID", "PADDLE_TRAINERS_NUM", "RANK", "WORLD_SIZE", "MASTER_PORT", "CUDA_VISIBLE_DEVICES",
         "FLAGS_selected_gpus", "PADDLE_CURRENT_ENDPOINT")
print(" ".join(f"{n}={os.environ.get(n)}" for n in names), sys.argv[1:])
sys.exit(int(os.environ["PADDLE_TRAINER_ID"]) if "fail" in sys.argv else 0)
"""


@pytest.mark.parametrize(
    ("argv", "visible", "expected"),
    [
        (["--gpus=0,1", "t.py"], None, ["0", "1"]),
        (["--gpus=4,5", "t.py"], "4,5", ["4", "5"]),
        (["--devices=2", "t.py"], "", ["2"]),
        (["--nproc_per_node=3", "t.py"], None, [None, None, None]),
        (["t.py"], None, [None]),
    ],
    ids=["gpus", "among-visible", "devices-alias", "cpu-processes", "one-process"],
)
def test_one_worker_per_device(argv, visible, expected):
    args, _ = launch.parse(argv)
    env = {} if visible is None else {"CUDA_VISIBLE_DEVICES": visible}
    assert launch.devices(args, env) == expected


def test_a_gpu_outside_its_visible_devices_is_refused():
    args, _ = launch.parse(["--gpus=0,3", "t.py"])
    with pytest.raises(SystemExit, match="3 not in CUDA_VISIBLE_DEVICES=0,1"):
        launch.devices(args, {"CUDA_VISIBLE_DEVICES": "0,1"})


def test_several_nodes_are_refused(capsys):
    with pytest.raises(SystemExit):
        launch.parse(["--ips=127.0.0.2,127.0.0.3", "t.py"])
    assert "one node only" in capsys.readouterr().err


def run_launch(tmp_path: Path, options: list[str], script_args: list[str]) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "show_env.py"
    script.write_text(SHOW_ENV)
    env = {**os.environ, "PYTHONPATH": str(LAUNCHER)}
    env.pop("CUDA_VISIBLE_DEVICES", None)
    env.pop("FLAGS_START_PORT", None)
    argv = [sys.executable, "-m", "paddle.distributed.launch", *options, f"--log_dir={tmp_path / 'log'}", str(script)]
    return subprocess.run([*argv, *script_args], capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)


def test_each_worker_gets_its_rank_and_its_own_gpu(tmp_path):
    done = run_launch(tmp_path, ["--gpus=0,1"], ["x"])
    assert done.returncode == 0, done.stderr
    logs = worker_logs(tmp_path / "log")
    assert sorted(logs) == [0, 1]
    one = logs[1].read_text()
    assert "PADDLE_TRAINER_ID=1 PADDLE_TRAINERS_NUM=2 RANK=1 WORLD_SIZE=2" in one
    assert "CUDA_VISIBLE_DEVICES=1 FLAGS_selected_gpus=1" in one
    port = one.split("MASTER_PORT=")[1].split()[0]
    assert f"MASTER_PORT={port}" in logs[0].read_text()  # one rendezvous for all
    assert "PADDLE_TRAINER_ID=0" in done.stdout and "['x']" in done.stdout  # rank 0 echoed, argv passed on


def test_a_failed_worker_fails_the_launch_as_paddle_reports_it(tmp_path):
    done = run_launch(tmp_path, ["--nproc_per_node=2"], ["fail"])  # rank 1 exits 1, rank 0 exits 0
    assert done.returncode == 1
    assert FAILED_RANK.findall(done.stdout) == ["1"], done.stdout  # tipc shows that worker's log
