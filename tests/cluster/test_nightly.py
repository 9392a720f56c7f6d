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

from tipc.cli import merge_cmd, prepare_cmd, report_cmd
from tipc.cluster.node import ClusterArgs, resolve_node
from tipc.cluster.options import cluster_args
from tipc.config.locate import TIPC_CHECKOUT, resolve_config
from tipc.dialects.paddleocr.config import load_config
from tipc.dialects.paddleocr.plan import build_plan
from tipc.plan import PlanOptions
from tipc.session.options import add_kept_options, add_pytest_options

NIGHTLY = Path(__file__).resolve().parents[2] / "nightly"
COMMANDS = {"merge": merge_cmd, "report": report_cmd, "prepare": prepare_cmd}


def logical_lines(script: str) -> list[list[str]]:
    """Shell commands with continuations joined and comments dropped, split into words;
    ``a && b || c`` gives ``a`` and ``b`` (the ``||`` branch is error handling)."""
    joined = re.sub(r"\\\n\s*", " ", script)
    commands = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        words = words[: words.index("||")] if "||" in words else words
        while "&&" in words:
            cut = words.index("&&")
            commands.append(words[:cut])
            words = words[cut + 1 :]
        if words:
            commands.append(words)
    return commands


def parse_node_command(words: list[str]) -> tuple[argparse.Namespace, ClusterArgs]:
    """``... -m pytest tipc <options>`` parsed with every option the plugin registers."""
    start = words.index("pytest")
    assert words[start - 1] == "-m" and words[start + 1] == "tipc", words
    parser = argparse.ArgumentParser()
    parser.add_argument("-p", action="append")  # pytest's own
    add_pytest_options(parser.add_argument)
    add_kept_options(parser.add_argument, taken=())
    ns = parser.parse_args([w for w in words[start + 2 :] if w != "$@"])  # "$@": the caller's extras
    return ns, cluster_args(lambda dest: getattr(ns, dest))


def parse_tipc_command(words: list[str], name: str) -> argparse.Namespace:
    """``... -m tipc <name> <arguments>`` (or ``.venv/bin/tipc <name>``) parsed by that command's parser."""
    start = words.index(name)
    assert words[start - 2 : start] == ["-m", "tipc"] or words[start - 1].endswith("/tipc"), words
    parser = argparse.ArgumentParser()
    COMMANDS[name].add_arguments(parser)
    return parser.parse_args(words[start + 1 :])


def expand(word: str, env: dict[str, str]) -> str:
    """Each ``$NAME`` in ``word`` (``--config=$TIPC_CONFIG`` too) → its value in ``env`` (a CI job's ``env:``)."""
    return re.sub(r"\$(\w+)", lambda m: env.get(m[1], m[0]), word)


def tipc_commands(commands: list[list[str]], name: str) -> list[argparse.Namespace]:
    return [
        parse_tipc_command(words, name)
        for words in commands
        if name in words and "tipc" in " ".join(words[: words.index(name)])
    ]


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
    assert (ns.tipc_config, ns.tipc_mode) == (["$TIPC_CONFIG"], "$TIPC_MODE")
    assert args == ClusterArgs(device="auto", rendezvous_timeout=300.0)
    # what srun gives the second task: the same command resolves to node 1
    env = {"SLURM_JOB_NODELIST": "gpu[07-08]", "SLURM_NODEID": "1", "FLAGS_START_PORT": "17000"}
    ctx = resolve_node(
        args,
        env,
        (),
        (),
        {"gpu07": "10.0.0.7", "gpu08": "10.0.0.8"}.__getitem__,
        which=lambda _: None,
        exists=lambda _: False,
    )
    assert (ctx.ips, ctx.host, ctx.node_rank, ctx.start_port, ctx.rendezvous_port) == (
        ("10.0.0.7", "10.0.0.8"),
        "10.0.0.8",
        1,
        17000,
        16999,
    )
    assert srun[-1] == "$@"  # sbatch's own arguments (--tipc-repo ...) reach every node
    assert [ns.dirs for ns in tipc_commands(lines, "merge")] == [["$TIPC_RESULTS"]]
    assert [ns.results_dirs for ns in tipc_commands(lines, "report")] == [[Path("$TIPC_RESULTS")]]


def test_local_2node_merges_then_reports():
    lines = logical_lines((NIGHTLY / "local-2node.sh").read_text())
    assert [ns.dirs for ns in tipc_commands(lines, "merge")] == [["$TIPC_RESULTS"]]
    assert [ns.results_dirs for ns in tipc_commands(lines, "report")] == [[Path("$TIPC_RESULTS")]]


def test_ci_job_runs_the_same_command_per_rank_then_merges():
    job = yaml.safe_load((NIGHTLY / "ci-job.yml").read_text())
    node, merge = job["jobs"]["node"], job["jobs"]["merge"]
    assert node["strategy"]["matrix"]["rank"] == [0, 1] and merge["needs"] == "node"
    runs = [step["run"] for step in node["steps"] if "pytest" in step.get("run", "")]
    assert len(runs) == 1
    env = job["env"]
    for rank in (0, 1):
        words = [expand(w, env) for w in shlex.split(runs[0].replace("${{ matrix.rank }}", str(rank)))]
        ns, args = parse_node_command(words)
        assert (args.ips, args.node_rank, args.rendezvous_timeout) == (tuple(env["TIPC_IPS"].split(",")), rank, 600.0)
        assert (ns.tipc_config, ns.tipc_mode, ns.tipc_repo) == (
            [env["TIPC_CONFIG"]],
            env["TIPC_MODE"],
            env["TIPC_REPO"],
        )
    steps = [words for step in merge["steps"] if "run" in step for words in logical_lines(step["run"])]
    (merged,) = tipc_commands(steps, "merge")
    (report,) = tipc_commands(steps, "report")
    assert merged.dirs == ["nightly-results"] and report.results_dirs == [Path("nightly-results")]
    (download,) = [s for s in merge["steps"] if "download-artifact" in s.get("uses", "")]
    (upload,) = [s for s in node["steps"] if "upload-artifact" in s.get("uses", "")]
    # each node's folder lands as nightly-results/node<rank>/: where its records' paths are relative to
    assert (upload["with"]["name"], download["with"]["path"]) == ("node${{ matrix.rank }}", "nightly-results")


def test_ci_job_names_a_real_config_and_uploads_where_the_nodes_write():
    job = yaml.safe_load((NIGHTLY / "ci-job.yml").read_text())
    env, node = job["env"], job["jobs"]["node"]
    config = resolve_config(env["TIPC_CONFIG"], TIPC_CHECKOUT)
    checkout = next(step for step in node["steps"] if step.get("with", {}).get("repository"))
    assert checkout["with"]["path"] == "${{ env.TIPC_REPO }}"
    runs = [[expand(w, env) for w in shlex.split(s["run"])] for s in node["steps"] if "run" in s]
    (prepare,) = tipc_commands(runs, "prepare")
    assert (prepare.tipc_config, prepare.mode, prepare.repo) == (
        [env["TIPC_CONFIG"]],
        env["TIPC_MODE"],
        Path(env["TIPC_REPO"]),
    )
    ips = tuple(env["TIPC_IPS"].split(","))
    for rank in (0, 1):
        plan = build_plan(
            load_config(str(config)),
            PlanOptions(mode=env["TIPC_MODE"], repo=env["TIPC_REPO"], ips=ips, host=ips[rank], node_rank=rank),
        )
        written = Path(plan.cwd) / plan.output_dir
        upload = next(s["with"]["path"] for s in node["steps"] if "upload-artifact" in s.get("uses", ""))
        assert (
            Path(
                upload.replace("${{ env.TIPC_RESULTS }}", env["TIPC_RESULTS"]).replace("${{ matrix.rank }}", str(rank))
            )
            == written
        )


FAKE_NODE = """
import argparse, os, sys, time
from pathlib import Path
from tipc.cluster.node import resolve_node
from tipc.cluster.options import OPTIONS, cluster_args
from tipc.doctor.preflight import run_preflight
from tipc.results.records import RunInfo, StageRecord, Status

parser = argparse.ArgumentParser()
parser.add_argument("path")
parser.add_argument("--config")
parser.add_argument("--mode")
for names, kwargs in OPTIONS:  # as the pytest front spells them
    parser.add_argument(*(n.replace("--", "--tipc-", 1) for n in names), **kwargs)
ns = parser.parse_args()
ctx = resolve_node(cluster_args(lambda d: getattr(ns, d)), {})
if not run_preflight(ctx, config_sha256="abc", paddle_version="3.3.1", mode=ns.mode).ok:
    sys.exit(3)
out = Path(os.environ["TIPC_RESULTS"]) / f"node{ctx.node_rank}"
out.mkdir(parents=True, exist_ok=True)
now = time.time()
info = RunInfo(model="tinyrec", mode=ns.mode, config=ns.config, config_sha256="abc",
               host=ctx.host, node_rank=ctx.node_rank, nodes=ctx.ips, start=now, duration=1.0,
               run_group=os.environ["TIPC_RUN_GROUP"], ended=True)
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
    env = dict(
        os.environ,
        TIPC_CONFIG="tinyrec/cfg.txt",
        TIPC_MODE="lite_train_lite_infer",
        TIPC_RESULTS=str(results),
        TIPC_PYTHON=sys.executable,
        TIPC_PYTEST=f"{sys.executable} {fake}",
        TIPC_START_PORT=str(free_port(2) + 1),
        FAIL_RANK=fail_rank,
        TIPC_PREPARE="0",
        TIPC_REPORTS=str(tmp_path / "reports"),
    )
    done = subprocess.run(
        ["bash", str(NIGHTLY / "local-2node.sh"), "--tipc-rendezvous-timeout", "20"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    consoles = "".join((results / f"node{r}.console.log").read_text() for r in (0, 1))
    assert done.returncode == expected_rc, done.stdout + done.stderr + consoles
    assert f"node 1 (127.0.0.3) exited with {expected_rc}" in done.stdout
    assert consoles.count("PASS peers: all 2 nodes met at 127.0.0.2") == 2
    merged = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    assert [(r["node_rank"], r["host"]) for r in merged] == [(0, "127.0.0.2"), (1, "127.0.0.3")]
    assert re.search(r"tipc merge: run group local-\S+: 2 node\(s\), 2 record\(s\)", done.stdout)
    (index,) = (tmp_path / "reports").rglob("index.html")
    assert str(index) in done.stdout and "127.0.0.3" in index.read_text()
