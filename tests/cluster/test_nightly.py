"""The nightly recipes: shell syntax, their command lines against the real option parsers,
and local-2node.sh end to end with a stand-in node command that runs the real preflight."""

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tipc.cli import merge_cmd
from tipc.cluster.node import ClusterArgs, resolve_node
from tipc.cluster.options import add_options, cluster_args

NIGHTLY = Path(__file__).resolve().parents[2] / "nightly"


def logical_lines(script: str) -> list[list[str]]:
    """Shell commands with continuations joined and comments dropped, split into words."""
    joined = re.sub(r"\\\n\s*", " ", script)
    commands = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        if words:
            commands.append(words[:words.index("||")] if "||" in words else words)
    return commands


def parse_node_command(words: list[str]) -> tuple[argparse.Namespace, ClusterArgs]:
    """``... -m pytest tipc <options>`` parsed with the options the plugin registers."""
    start = words.index("pytest")
    assert words[start - 1] == "-m" and words[start + 1] == "tipc", words
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--mode", required=True)
    parser.add_argument("-p", action="append")
    add_options(parser.add_argument)
    ns = parser.parse_args(words[start + 2:])
    return ns, cluster_args(lambda dest: getattr(ns, dest))


def parse_merge_command(words: list[str]) -> argparse.Namespace:
    start = words.index("merge")
    assert words[start - 2:start] == ["-m", "tipc"], words
    parser = argparse.ArgumentParser()
    merge_cmd.add_arguments(parser)
    return parser.parse_args(words[start + 1:])


@pytest.mark.parametrize("name", ["slurm.sbatch", "local-2node.sh"])
def test_shell_syntax(name):
    done = subprocess.run(["bash", "-n", str(NIGHTLY / name)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_sbatch_asks_one_task_on_each_of_two_nodes():
    text = (NIGHTLY / "slurm.sbatch").read_text()
    directives = dict(re.findall(r"^#SBATCH --([\w-]+)=(\S+)", text, re.M))
    assert (directives["nodes"], directives["ntasks-per-node"]) == ("2", "1")


def test_sbatch_node_command_parses_and_takes_identity_from_slurm():
    lines = logical_lines((NIGHTLY / "slurm.sbatch").read_text())
    srun = next(words for words in lines if words[0] == "srun")
    assert "--ntasks-per-node=1" in srun
    ns, args = parse_node_command(srun)
    assert (ns.config, ns.mode) == ("$TIPC_CONFIG", "$TIPC_MODE")
    assert args == ClusterArgs(device="auto", rendezvous_timeout=300.0)
    # what srun gives the second task: the same command resolves to node 1
    env = {"SLURM_JOB_NODELIST": "gpu[07-08]", "SLURM_NODEID": "1", "FLAGS_START_PORT": "17000"}
    ctx = resolve_node(args, env, (), (), {"gpu07": "10.0.0.7", "gpu08": "10.0.0.8"}.__getitem__,
                       which=lambda _: None, exists=lambda _: False)
    assert (ctx.ips, ctx.host, ctx.node_rank, ctx.start_port, ctx.rendezvous_port) == (
        ("10.0.0.7", "10.0.0.8"), "10.0.0.8", 1, 17000, 16999)
    merge = next(words for words in lines if "merge" in words)
    assert parse_merge_command(merge).dirs == ["$TIPC_RESULTS"]


def test_ci_job_runs_the_same_command_per_rank_then_merges():
    job = yaml.safe_load((NIGHTLY / "ci-job.yml").read_text())
    node, merge = job["jobs"]["node"], job["jobs"]["merge"]
    assert node["strategy"]["matrix"]["rank"] == [0, 1] and merge["needs"] == "node"
    runs = [step["run"] for step in node["steps"] if "pytest" in step.get("run", "")]
    assert len(runs) == 1
    for rank in (0, 1):
        _, args = parse_node_command(shlex.split(runs[0].replace("${{ matrix.rank }}", str(rank))))
        assert (args.ips, args.node_rank, args.rendezvous_timeout) == (("$TIPC_IPS",), rank, 600.0)
    merge_run = next(step["run"] for step in merge["steps"] if " merge " in step.get("run", ""))
    assert parse_merge_command(shlex.split(merge_run)).out == "nightly-results/merged"


FAKE_NODE = """
import argparse, os, sys, time
from pathlib import Path
from tipc.cluster import add_options, cluster_args, resolve_node, run_preflight
from tipc.run.record import RunInfo, StageRecord, Status

parser = argparse.ArgumentParser()
parser.add_argument("path")
parser.add_argument("--config")
parser.add_argument("--mode")
add_options(parser.add_argument)
ns = parser.parse_args()
ctx = resolve_node(cluster_args(lambda d: getattr(ns, d)), {})
if not run_preflight(ctx, config_sha256="abc", paddle_version="3.3.1", mode=ns.mode).ok:
    sys.exit(3)
out = Path(os.environ["TIPC_RESULTS"]) / f"node{ctx.node_rank}"
out.mkdir(parents=True, exist_ok=True)
now = time.time()
info = RunInfo(model="tinyrec", mode=ns.mode, config=ns.config, config_sha256="abc",
               host=ctx.host, node_rank=ctx.node_rank, nodes=ctx.ips, start=now, duration=1.0)
(out / "run.json").write_text(info.to_json())
record = StageRecord(id="c::train", kind="train", chain="c", status=Status.PASSED, start=now,
                     node_rank=ctx.node_rank, host=ctx.host, model="tinyrec", mode=ns.mode)
(out / "results.jsonl").write_text(record.to_json() + "\\n")
(out / "results_python.log").write_text(f"node {ctx.node_rank} line\\n")
sys.exit(int(os.environ.get("FAIL_RANK", "-1") == str(ctx.node_rank)))
"""


@pytest.mark.parametrize("fail_rank, expected_rc", [("", 0), ("1", 1)], ids=["both-pass", "node1-fails"])
def test_local_2node_runs_both_nodes_and_merges(tmp_path, free_port, fail_rank, expected_rc):
    fake = tmp_path / "fake_node.py"
    fake.write_text(FAKE_NODE)
    results = tmp_path / "out" / "tinyrec" / "lite_train_lite_infer"
    env = dict(os.environ, TIPC_CONFIG="tinyrec/cfg.txt", TIPC_MODE="lite_train_lite_infer",
               TIPC_RESULTS=str(results), TIPC_PYTHON=sys.executable,
               TIPC_PYTEST=f"{sys.executable} {fake}", TIPC_START_PORT=str(free_port(2) + 1),
               FAIL_RANK=fail_rank, TIPC_PREPARE="0")
    done = subprocess.run(["bash", str(NIGHTLY / "local-2node.sh"), "--rendezvous-timeout", "20"],
                          env=env, capture_output=True, text=True, timeout=120)
    consoles = "".join((results / f"node{r}.console.log").read_text() for r in (0, 1))
    assert done.returncode == expected_rc, done.stdout + done.stderr + consoles
    assert f"node 1 (127.0.0.3) exited with {expected_rc}" in done.stdout
    assert consoles.count("PASS peers: all 2 nodes met at 127.0.0.2") == 2
    merged = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    assert [(r["node_rank"], r["host"]) for r in merged] == [(0, "127.0.0.2"), (1, "127.0.0.3")]
    assert "tipc merge: 2 node(s), 2 record(s)" in done.stdout
