"""A node of a two-node job dies mid-train: the other stops within --node-timeout and names it.

Two real ``tipc run`` processes, node 0 on 127.0.0.2 and node 1 on 127.0.0.3, train the fake target through
``paddle.distributed.launch`` (CPU) with a training that sleeps; one node's tipc is killed (SIGKILL: no
handler, no goodbye) while both train.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import BinaryIO

import pytest

from tests.support.fake_target import CPU_CONFIG, copy_fake_target
from tests.support.ports import IPS, launch_port
from tests.support.processes import wait_for
from tipc.results.outcome import INFRA_EXIT

pytestmark = pytest.mark.slow
MODE = "lite_train_lite_infer"
NODE_TIMEOUT = 5
STOP_BOUND = NODE_TIMEOUT + 20  # the bound, the stage's kill grace and the run's end on a busy machine


@pytest.fixture
def two_node_target(tmp_path) -> Path:
    if subprocess.run([sys.executable, "-c", "import paddle.distributed.launch"], capture_output=True).returncode:
        pytest.skip("paddle is not installed in this interpreter")
    repo = copy_fake_target(tmp_path / "target")
    config = repo / CPU_CONFIG
    config.write_text(config.read_text().replace("gpu_list:-1", f"gpu_list:{','.join(IPS)};0"))
    return repo


def start(repo: Path, rank: int, port: int, log: BinaryIO) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-m", "tipc", "run", "--config", CPU_CONFIG, "--mode", MODE, "--python", sys.executable,
            "--no-report", "--device", "cpu", "--ips", ",".join(IPS), "--node-rank", str(rank), "--start-port",
            str(port), "--rendezvous-timeout", "60", "--node-timeout", str(NODE_TIMEOUT)]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PADDLE_", "FLAGS_", "SLURM_"))}
    return subprocess.Popen(argv, cwd=repo, env={**env, "TIPC_FAKE": "train:sleep=300"}, stdout=log, stderr=log)


def train_record(repo: Path, rank: int) -> dict:
    results = repo / "test_tipc" / "output" / "fake_rec" / MODE / f"node{rank}" / "results.jsonl"
    return json.loads(results.read_text().splitlines()[0])


def kill_one(repo: Path, nodes: list[subprocess.Popen[bytes]], dead: int) -> float:
    """Kill node ``dead`` once both train; seconds until the other ended (with the infra exit status)."""
    try:
        launched = [repo / "test_tipc" / "output" / "fake_rec" / MODE / f"node{k}" for k in (0, 1)]
        assert wait_for(lambda: all(any(d.glob("*_launch_log/*")) for d in launched), 120), "the training never began"
        time.sleep(2)  # both launches run their sleeping trainer
        nodes[dead].send_signal(signal.SIGKILL)
        killed = time.monotonic()
        survivor = nodes[1 - dead]
        assert survivor.wait(timeout=STOP_BOUND) == INFRA_EXIT, (repo / f"node{1 - dead}.console").read_text()
        return time.monotonic() - killed
    finally:
        for node in nodes:
            node.kill()
            node.wait()


@pytest.mark.parametrize("dead", [1, 0], ids=["node-1-dies", "node-0-dies"])
def test_the_survivor_stops_within_the_bound_and_names_the_dead_node(two_node_target, dead):
    repo, port = two_node_target, launch_port(IPS)
    with (repo / "node0.console").open("wb") as log0, (repo / "node1.console").open("wb") as log1:
        took = kill_one(repo, [start(repo, rank, port, log) for rank, log in enumerate((log0, log1))], dead)
    record = train_record(repo, 1 - dead)
    assert record["status"] == "infra" and record["infra"]["kind"] == "node"
    assert record["infra"]["node"].startswith(f"node {dead} ({IPS[dead]}) went silent at "), record["reason"]
    assert record["reason"].startswith(f"infra: ended by a lost node (node {dead} ({IPS[dead]}) went silent at ")
    print(f"node {dead} killed: node {1 - dead} stopped {took:.1f} s later")
