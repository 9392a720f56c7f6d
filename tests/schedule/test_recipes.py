"""The sharded nightly recipes: a GitHub Actions matrix, a GitLab `parallel:` job and a Slurm array,
all running nightly/run-shard.sh per shard and nightly/merge-shards.sh after; both scripts for real."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tipc.results.folder import read_run_info

from .plans import CONFIG_DIR, MODE, variant

NIGHTLY = Path(__file__).resolve().parents[2] / "nightly"
SCRIPTS = ("run-shard.sh", "merge-shards.sh", "shards.sbatch")


@pytest.mark.parametrize("name", SCRIPTS)
def test_shell_syntax(name):
    done = subprocess.run(["bash", "-n", str(NIGHTLY / name)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def shard_runs(script: str) -> list[list[str]]:
    """The run-shard.sh command lines of a recipe step, continuation lines joined."""
    return [shlex.split(line) for line in re.sub(r"\\\n\s*", " ", script).splitlines() if "run-shard.sh" in line]


def test_github_matrix_runs_each_shard_of_the_count_and_merges_after_all():
    job = yaml.safe_load((NIGHTLY / "shards-github.yml").read_text())
    shard, merge = job["jobs"]["shard"], job["jobs"]["merge"]
    assert shard["strategy"]["matrix"]["shard"] == list(range(1, int(job["env"]["SHARDS"]) + 1))
    steps = [step.get("run", "").replace("${{ matrix.shard }}", "3") for step in shard["steps"]]
    (run,) = [words for step in steps for words in shard_runs(step)]
    assert run[0] == "TIPC_SHARD=3/$SHARDS"
    assert (NIGHTLY.parent / job["env"]["TIPC_CONFIGS"]).is_file()
    upload = next(s for s in shard["steps"] if "upload-artifact" in s.get("uses", ""))
    download = next(s for s in merge["steps"] if "download-artifact" in s.get("uses", ""))
    assert upload["with"]["path"] == download["with"]["path"] == "${{ env.TIPC_OUTPUT }}"
    assert merge["needs"] == "shard" and merge["if"] == "always()"
    assert any("nightly/merge-shards.sh" in s.get("run", "") for s in merge["steps"])
    restore = next(s for s in shard["steps"] if "cache/restore" in s.get("uses", ""))
    save = next(s for s in merge["steps"] if "cache/save" in s.get("uses", ""))
    assert restore["with"]["path"] == save["with"]["path"]  # every shard reads what the last merge wrote


def test_gitlab_parallel_job_runs_its_index_of_the_total_and_merges_after_all():
    job = yaml.safe_load((NIGHTLY / "shards-gitlab.yml").read_text())
    shard, merge = job["tipc-shard"], job["tipc-merge"]
    assert shard["parallel"] == 8
    (run,) = [words for line in shard["script"] for words in shard_runs(line)]
    assert run[0] == "TIPC_SHARD=$CI_NODE_INDEX/$CI_NODE_TOTAL"  # CI_NODE_INDEX counts from 1, as --shard
    assert merge["needs"] == [{"job": "tipc-shard", "artifacts": True}] and merge["when"] == "always"
    assert (shard["cache"]["policy"], merge["cache"]["policy"]) == ("pull", "push")
    assert shard["cache"]["key"] == merge["cache"]["key"]
    assert any("nightly/merge-shards.sh" in line for line in merge["script"])


def test_slurm_array_task_runs_its_index_and_task_one_submits_the_merge():
    text = (NIGHTLY / "shards.sbatch").read_text()
    directives = dict(re.findall(r"^#SBATCH --([\w-]+)=(\S+)", text, re.M))
    assert directives["array"] == "1-8"
    assert 'TIPC_SHARD="${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}"' in text
    assert '--dependency="afterany:${SLURM_ARRAY_JOB_ID}"' in text and "nightly/merge-shards.sh" in text


def test_run_shard_then_merge_shards_make_one_report(fake_repo, tmp_path):
    configs = tmp_path / "configs.txt"
    lines = ["# the nightly's configs", ""]
    for name, autocasts in (("a", "fp32|amp|o1"), ("b", "o2|o3")):
        path = fake_repo / CONFIG_DIR / f"{name}.txt"
        path.write_text(variant({"model_name": "rc", "Global.auto_cast": autocasts, "--benchmark": "False"}))
        lines.append(str(path))
    configs.write_text("\n".join(lines))  # no newline at the end: the last config still counts
    env = {**os.environ, "TIPC_CONFIGS": str(configs), "TIPC_MODE": MODE, "TIPC_PYTHON": sys.executable}
    for k in (1, 2):
        done = subprocess.run(
            ["bash", str(NIGHTLY / "run-shard.sh"), "--tipc-python", sys.executable, "-q"],
            env={**env, "TIPC_SHARD": f"{k}/2"},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    output = fake_repo / "test_tipc" / "output"
    merged = subprocess.run(
        ["bash", str(NIGHTLY / "merge-shards.sh"), str(output), str(tmp_path / "reports")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "tipc merge: 2 shard(s), 25 record(s)" in merged.stdout  # 5 chains × 5 stages
    info = read_run_info(output / "rc" / MODE / "run.json")
    assert info.notes[0].startswith("merged from 2 shard(s)")
    summary = tmp_path / "reports" / "rc" / MODE / "latest" / "summary.json"
    assert json.loads(summary.read_text())["counts"]["passed"] == 25


def test_merge_shards_fails_when_there_is_nothing_to_merge(tmp_path):
    done = subprocess.run(
        ["bash", str(NIGHTLY / "merge-shards.sh"), str(tmp_path)],
        capture_output=True,
        text=True,
        env={**os.environ, "TIPC_PYTHON": sys.executable},
        check=False,
    )
    assert done.returncode == 1 and "no <model>/<mode>/shard<K>/ results under" in done.stderr
