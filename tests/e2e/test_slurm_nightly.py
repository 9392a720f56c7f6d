"""The Slurm recipes on a real two-node cluster on this machine (tests/support/slurm.py): the sharded
nightly twice, the second night with one array task cancelled, merged by its own dependent job; and
the two-node job training the reference target on both nodes, merged by run group."""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from pathlib import Path

import pytest

from tests.support import slurm
from tests.support.fake_target import copy_fake_target
from tests.support.ports import launch_port
from tipc.results.folder import read_records, read_run_info

pytestmark = pytest.mark.slow  # `make test` (xdist loadfile) runs the module on one worker: one cluster
CHECKOUT = Path(__file__).resolve().parents[2]
MODE = "lite_train_lite_infer"
CONFIGS = (
    "train_linux_cpu_normal_normal_infer_python_linux_cpu.txt",
    "train_linux_cpu_normal_amp_infer_python_linux_cpu.txt",
)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    why = slurm.missing()
    if why:
        pytest.skip(why)
    started = slurm.start(tmp_path_factory.mktemp("slurm"))
    yield next(started)
    started.close()


def submit(cluster, env, *sbatch):
    done = cluster.run(
        "bash", str(CHECKOUT / "nightly" / "submit-slurm.sh"), "shards", *sbatch, "--", "--tipc-python", sys.executable,
        cwd=env["HERE"], env={**cluster.env, **env},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr + cluster.logs()
    array, merge = re.search(r"array job (\d+) \(run group \S+\), merge job (\d+)", done.stdout).groups()
    return array, merge


def sharded_night(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The fake target's output folder (its two configs listed), and the sharded recipe's settings."""
    repo = copy_fake_target(tmp_path / "fake_target")
    configs = tmp_path / "configs.txt"
    configs.write_text("".join(f"configs/fake_rec/{name}\n" for name in CONFIGS))
    output = repo / "test_tipc" / "output"
    env = {
        "HERE": str(tmp_path),
        "TIPC_CONFIGS": str(configs),
        "TIPC_REPO": str(repo),
        "TIPC_MODE": MODE,
        "TIPC_OUTPUT": str(output),
        "TIPC_SHARDS": "2",
        "TIPC_PYTHON": sys.executable,
        "TIPC_JOBS": "1",
        "TIPC_TIME": "00:10:00",
        "TIPC_MERGE_TIME": "00:10:00",
        "TIPC_REPORTS": str(tmp_path / "reports"),
    }
    return output, env


def test_two_nights_of_the_sharded_recipe_the_second_with_a_cancelled_task(cluster, tmp_path):
    output, env = sharded_night(tmp_path)
    # An array with a limit of its own (%1: one task at a time): the tasks take it, the merge job does not
    array, merge = submit(cluster, env, "--array=1-2%1")
    cluster.wait_jobs(array, merge)
    assert [p.name for p in tmp_path.glob("tipc-shards-merge-*.out")] == [f"tipc-shards-merge-{merge}.out"]
    mode_dir = output / "fake_rec" / MODE
    first = read_run_info(mode_dir / "run.json")
    assert first.run_group == f"slurm-{array}", cluster.logs()
    merge_log = next(tmp_path.glob(f"tipc-shards-merge-{merge}.out")).read_text()
    assert f"tipc merge: run group slurm-{array}: 2 shard(s)" in merge_log

    # Night 2: task 2 never runs (cancelled while held: a node failure or time limit does the same)
    array2, merge2 = submit(cluster, env, "--hold")
    assert cluster.run("scancel", f"{array2}_2").returncode == 0
    assert cluster.run("scontrol", "release", f"{array2}_1").returncode == 0
    assert cluster.run("scontrol", "release", merge2).returncode == 0
    cluster.wait_jobs(array2, merge2)
    log = next(tmp_path.glob(f"tipc-shards-merge-{merge2}.out")).read_text()
    assert f"incomplete: shard 2/2 of run group slurm-{array2} did not report" in log, log + cluster.logs()
    assert f"set aside (another night's, not merged): run group slurm-{array}: 2 part(s)" in log
    tonight = read_run_info(mode_dir / "shards" / f"slurm-{array2}" / "shard1" / "run.json").run_id
    # the two configs are two models (two results folders): shard 1's chains are in one or both
    records = [
        r for model in ("fake_rec", "fake_rec_amp") for r in read_records(output / model / MODE / "results.jsonl")
    ]
    assert records and {r.run_id for r in records} == {tonight}  # none of last night's
    assert len(records) < 15  # night 1 ran 15 stages in two shards: shard 2's are missing, not carried over
    assert os.path.isfile(output / "tipc-history.sqlite")
    assert (tmp_path / "reports" / "fake_rec_amp" / MODE / "latest").exists()


FLEET = "tinyrec/train_linux_cpu_fleet_normal_infer_python_linux_cpu.txt"


def test_the_two_node_recipe_trains_on_both_nodes_and_merges_its_own_job(cluster, tinyrec, tmp_path):
    # A copy of its own: the session's tinyrec is other tests' too, and they read its results folder.
    tinyrec = Path(shutil.copytree(tinyrec, tmp_path / "tinyrec", ignore=shutil.ignore_patterns("test_tipc")))
    mode_dir = tinyrec / "test_tipc" / "output" / "tinyrec" / MODE
    env = {
        "TIPC_CONFIG": FLEET,
        "TIPC_MODE": MODE,
        "TIPC_RESULTS": str(mode_dir),
        "TIPC_PYTHON": sys.executable,
        "TIPC_TIME": "00:10:00",
        "TIPC_REPORTS": str(tmp_path / "reports"),
        "FLAGS_START_PORT": str(launch_port(slurm.NODES)),
    }
    done = cluster.run(
        "bash", str(CHECKOUT / "nightly" / "submit-slurm.sh"), "nodes", "--",
        "--tipc-repo", str(tinyrec), "--tipc-python", sys.executable, "--tipc-device", "cpu",
        cwd=str(tmp_path), env={**cluster.env, **env},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (job,) = re.search(r"job (\d+) \(run group", done.stdout).groups()
    cluster.wait_jobs(job, timeout=480)
    log = (tmp_path / f"tipc-nightly-{job}.out").read_text()
    assert f"tipc merge: run group slurm-{job}: 2 node(s), 10 record(s)" in log, log + cluster.logs()
    records = read_records(mode_dir / "results.jsonl")
    assert {r.node_rank for r in records} == {0, 1} and read_run_info(mode_dir / "run.json").run_group == f"slurm-{job}"
    assert (tmp_path / "reports" / "tinyrec" / MODE / "latest").exists()


def test_a_night_scancel_stops_while_its_shards_train_is_infra_and_incomplete(cluster, tmp_path):
    output, env = sharded_night(tmp_path)
    env["TIPC_FAKE"] = "train:sleep=300"  # both shards train for minutes: the cancel comes mid-train
    array, merge = submit(cluster, env)
    running = lambda: len(list(output.glob(f"*/{MODE}/shards/*/shard*/.tipc_stage/*")))  # noqa: E731
    deadline = time.monotonic() + 180
    while running() < 2 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert running() == 2, cluster.logs()
    time.sleep(2)
    assert cluster.run("scancel", array).returncode == 0  # the whole array: every shard mid-train
    cluster.wait_jobs(array, merge)
    log = next(tmp_path.glob(f"tipc-shards-merge-{merge}.out")).read_text()
    for k in (1, 2):
        assert f"tipc merge: incomplete: shard {k}/2 was stopped by the scheduler (job " in log, log + cluster.logs()
    assert "state COMPLETING" in log and "chains not run to their end: " in log  # scontrol's word for a cancel
    records = [
        r for model in ("fake_rec", "fake_rec_amp") for r in read_records(output / model / MODE / "results.jsonl")
    ]
    stopped = [r for r in records if r.status.value == "infra"]
    assert {r.shard for r in stopped} == {"1/2", "2/2"}  # every shard's running stages: infra, not failed
    assert all(r.infra["kind"] == "scheduler" and r.infra["state"] == "COMPLETING" for r in stopped)
    assert {r.status.value for r in records} == {"infra", "blocked"}  # the stages a cancel left: not run
    assert os.path.isfile(output / "tipc-history.sqlite")  # the incomplete night reached the history
