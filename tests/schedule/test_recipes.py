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

from tests.support.trend_history import seed_nights
from tipc.history.store import HISTORY_FILE, History
from tipc.results.folder import read_run_info

from .plans import CONFIG_DIR, MODE, variant

NIGHTLY = Path(__file__).resolve().parents[2] / "nightly"
SCRIPTS = ("run-shard.sh", "merge-shards.sh", "shards.sbatch", "merge-shards.sbatch", "submit-slurm.sh", "checkout.sh")


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
    assert shard["strategy"]["matrix"]["shard"] == list(range(1, 9))
    steps = [
        step.get("run", "").replace("${{ matrix.shard }}", "3").replace("${{ strategy.job-total }}", "8")
        for step in shard["steps"]
    ]
    (run,) = [words for step in steps for words in shard_runs(step)]
    assert run[0] == "TIPC_SHARD=3/8"  # the count is the matrix's own (strategy.job-total)
    assert (NIGHTLY.parent / job["env"]["TIPC_CONFIGS"]).is_file()
    upload = next(s for s in shard["steps"] if "upload-artifact" in s.get("uses", ""))
    download = next(s for s in merge["steps"] if "download-artifact" in s.get("uses", ""))
    assert upload["with"]["path"].splitlines() == ["${{ env.TIPC_OUTPUT }}", "!${{ env.TIPC_HISTORY }}"]
    assert download["with"]["path"] == "${{ env.TIPC_OUTPUT }}"
    assert merge["needs"] == "shard" and merge["if"] == "always()"
    assert any("nightly/merge-shards.sh" in s.get("run", "") for s in merge["steps"])
    caches = [s for j in (shard, merge) for s in j["steps"] if "actions/cache" in s.get("uses", "")]
    # exactly the history file, under a key of the run and its attempt (a key is written once)
    assert {c["with"]["path"] for c in caches} == {"${{ env.TIPC_HISTORY }}"}
    assert {c["with"]["key"] for c in caches} == {"tipc-history-${{ github.run_id }}-${{ github.run_attempt }}"}
    assert job["concurrency"]["cancel-in-progress"] is False
    reports = [s for s in merge["steps"] if "upload-artifact" in s.get("uses", "")][-1]
    # the reports with the merged results their links point into, side by side; the history is the cache's
    assert reports["with"]["path"].splitlines() == ["nightly-reports", *upload["with"]["path"].splitlines()]
    # "Re-run failed jobs" uploads a shard and the reports again under the same names: v4 refuses that unless told
    assert upload["with"]["overwrite"] is True and reports["with"]["overwrite"] is True


def test_gitlab_parallel_job_runs_its_index_of_the_total_and_merges_after_all():
    doc = yaml.safe_load((NIGHTLY / "shards-gitlab.yml").read_text())
    base, shard, merge = doc[".tipc-nightly"], doc["tipc-shard"], doc["tipc-merge"]
    assert "stages" not in doc and (shard["stage"], merge["stage"]) == ("test", "deploy")  # GitLab's defaults
    assert shard["parallel"] == 8
    (run,) = [words for line in shard["script"] for words in shard_runs(line)]
    assert run[0] == "TIPC_SHARD=$CI_NODE_INDEX/$CI_NODE_TOTAL"  # CI_NODE_INDEX counts from 1, as --shard
    assert shard["script"][0].startswith("nightly/checkout.sh ")  # fetch into the restored tree, no clone
    assert merge["needs"] == [{"job": "tipc-shard", "artifacts": True}] and merge["rules"][0]["when"] == "always"
    assert '$CI_PIPELINE_SOURCE == "schedule"' in base["rules"][0]["if"] and "push" not in base["rules"][0]["if"]
    assert (base["cache"]["policy"], merge["cache"]["policy"]) == ("pull", "pull-push")
    assert base["cache"]["paths"] == merge["cache"]["paths"] == [doc["variables"]["TIPC_HISTORY"]]
    assert any("nightly/merge-shards.sh" in line for line in merge["script"])
    assert merge["artifacts"]["paths"] == ["nightly-reports/", *shard["artifacts"]["paths"]]
    assert merge["artifacts"]["exclude"] == shard["artifacts"]["exclude"] == [doc["variables"]["TIPC_HISTORY"]]


def test_checkout_fetches_a_commit_into_a_folder_a_cache_restored_into(tmp_path):
    upstream = tmp_path / "upstream"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(upstream)]
    upstream.mkdir()
    subprocess.run([*git, "init", "-q"], check=True)
    (upstream / "a.txt").write_text("one\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    first = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    (upstream / "a.txt").write_text("two\n")
    subprocess.run([*git, "commit", "-qam", "two"], check=True)
    subprocess.run([*git, "config", "uploadpack.allowReachableSHA1InWant", "true"], check=True)
    target = tmp_path / "PaddleOCR"
    (target / "test_tipc" / "output").mkdir(parents=True)
    (target / "test_tipc" / "output" / "tipc-history.sqlite").write_text("restored")  # the cache's
    for ref, text in (("master", "two\n"), (first, "one\n"), ("master", "two\n")):  # night after night
        done = subprocess.run(
            ["bash", str(NIGHTLY / "checkout.sh"), f"file://{upstream}", ref, str(target)],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"},
        )
        assert done.returncode == 0, done.stderr
        assert (target / "a.txt").read_text() == text
    assert (target / "test_tipc" / "output" / "tipc-history.sqlite").read_text() == "restored"


FAKE_SBATCH = """#!/usr/bin/env bash
# Slurm's sbatch as the recipe sees it: prints a job id; records each call's arguments.
n=$(( $(wc -l <"$SBATCH_LOG" 2>/dev/null || echo 0) + 101 ))
echo "$* TIPC_RUN_GROUP=${TIPC_RUN_GROUP:-}" >>"$SBATCH_LOG"
echo "$n"
"""


def test_slurm_wrapper_submits_the_array_then_the_merge_after_it_with_the_same_options(tmp_path):
    sbatch = tmp_path / "bin" / "sbatch"
    sbatch.parent.mkdir()
    sbatch.write_text(FAKE_SBATCH)
    sbatch.chmod(0o755)
    (tmp_path / "configs.txt").write_text("c.txt\n")
    env = {
        **os.environ,
        "PATH": f"{sbatch.parent}:{os.environ['PATH']}",
        "SBATCH_LOG": str(tmp_path / "calls"),
        "TIPC_CONFIGS": "configs.txt",
        "TIPC_MODE": MODE,
        "TIPC_OUTPUT": "out",
        "TIPC_SHARDS": "4",
        "TIPC_GPUS_PER_TASK": "2",
        "TIPC_MEM": "64G",
    }
    env.pop("TIPC_RUN_GROUP", None)
    args = ["bash", str(NIGHTLY / "submit-slurm.sh"), "shards", "--partition=gpu", "--qos=night", "--", "--jobs", "2"]
    done = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    array, merge = (tmp_path / "calls").read_text().splitlines()
    assert "--array=1-4 --time=06:00:00 --gres=gpu:2 --mem=64G --partition=gpu --qos=night" in array
    assert array.endswith("nightly/shards.sbatch --jobs 2 TIPC_RUN_GROUP=")
    assert "--dependency=afterany:101 --time=01:00:00 --partition=gpu --qos=night" in merge
    assert merge.endswith("nightly/merge-shards.sbatch TIPC_RUN_GROUP=slurm-101")
    text = (NIGHTLY / "shards.sbatch").read_text()
    assert "sbatch " not in text.replace("#SBATCH", "")  # no task submits anything
    assert 'TIPC_SHARD="${SLURM_ARRAY_TASK_ID}/${TIPC_SHARDS:-$SLURM_ARRAY_TASK_COUNT}"' in text
    # one shard of that night again: its group and count, the caller's array
    env["TIPC_RUN_GROUP"] = "slurm-101"
    args = ["bash", str(NIGHTLY / "submit-slurm.sh"), "shards", "--array=3"]
    done = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    rerun, again = (tmp_path / "calls").read_text().splitlines()[2:]
    assert "--array=1-" not in rerun and "--array=3" in rerun and "TIPC_RUN_GROUP=slurm-101" in rerun
    assert "--dependency=afterany:103" in again and again.endswith("TIPC_RUN_GROUP=slurm-101")


def test_run_shard_then_merge_shards_make_one_report(fake_repo, tmp_path):
    configs = tmp_path / "configs.txt"
    lines = ["# the nightly's configs", ""]
    for name, autocasts in (("a", "fp32|amp|o1"), ("b", "o2|o3")):
        path = fake_repo / CONFIG_DIR / f"{name}.txt"
        path.write_text(variant({"model_name": "rc", "Global.auto_cast": autocasts, "--benchmark": "False"}))
        lines.append(str(path))
    configs.write_text("\n".join(lines))  # no newline at the end: the last config still counts
    env = {**os.environ, "TIPC_CONFIGS": str(configs), "TIPC_MODE": MODE, "TIPC_PYTHON": sys.executable}
    env["TIPC_RUN_GROUP"] = "night-1"
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
    assert "tipc merge: run group night-1: 2 shard(s), 25 record(s)" in merged.stdout  # 5 chains × 5 stages
    info = read_run_info(output / "rc" / MODE / "run.json")
    assert info.notes[0].startswith("merged from 2 shard(s) of run group night-1")
    summary = json.loads(History(output / HISTORY_FILE).reports("rc", MODE)[0].text)  # the report's, in the store
    assert summary["counts"]["passed"] == 25
    index = (tmp_path / "reports" / "night" / "night-1" / "index.html").read_text()  # the night's, over its models
    assert 'data-model="rc"' in index and f'href="../../rc/{MODE}/' in index


def test_merge_shards_fails_when_there_is_nothing_to_merge(tmp_path):
    done = subprocess.run(
        ["bash", str(NIGHTLY / "merge-shards.sh"), str(tmp_path)],
        capture_output=True,
        text=True,
        env={**os.environ, "TIPC_PYTHON": sys.executable},
        check=False,
    )
    assert done.returncode == 1 and "no <model>/<mode>/shards/<run group>/shard<K>/ results under" in done.stderr


def _night(env: dict[str, str], output: Path, reports: Path, group: str) -> subprocess.CompletedProcess[str]:
    """One night of the sharded recipe on one shard: run-shard.sh, then merge-shards.sh's exit status."""
    env = {**env, "TIPC_RUN_GROUP": group, "TIPC_SHARD": "1/1"}
    shard = subprocess.run(
        ["bash", str(NIGHTLY / "run-shard.sh"), "--tipc-python", sys.executable, "-q", "--tipc-no-report"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert shard.returncode == 0, shard.stdout + shard.stderr
    return subprocess.run(
        ["bash", str(NIGHTLY / "merge-shards.sh"), str(output), str(reports)],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.slow  # two nights of the recipe
def test_a_night_with_a_planted_regression_fails_its_merge_step_when_asked(fake_repo, tmp_path):
    path = fake_repo / CONFIG_DIR / "a.txt"
    path.write_text(variant({"model_name": "rc", "Global.auto_cast": "fp32"}))  # with its benchmark figures
    configs = tmp_path / "configs.txt"
    configs.write_text(f"{path}\n")
    env = {**os.environ, "TIPC_CONFIGS": str(configs), "TIPC_MODE": MODE, "TIPC_PYTHON": sys.executable}
    env |= {"TIPC_FAIL_ON": "regression"}
    output, reports = fake_repo / "test_tipc" / "output", tmp_path / "reports"
    done = _night(env, output, reports, "night-1")
    assert done.returncode == 0, done.stdout + done.stderr
    (store,) = [*output.rglob(HISTORY_FILE), *reports.rglob(HISTORY_FILE)]
    seed_nights(store, "rc", MODE, 12, slower=2)  # a shift shows in three nights: two seeded, the planted one
    planted = _night({**env, "TIPC_FAKE": "infer:slower=2"}, output, reports, "night-3")
    assert planted.returncode == 1 and "tipc: regression: " in planted.stderr, planted.stdout + planted.stderr
    assert "tipc merge: the night regressed: " in planted.stderr  # the merge step gates too
    summary = reports / "rc" / MODE / "latest" / "index.html"
    assert 'data-overall="regressed"' in summary.read_text()
    reported = subprocess.run(
        ["bash", str(NIGHTLY / "merge-shards.sh"), str(output), str(reports)],
        env={**env, "TIPC_FAIL_ON": "none", "TIPC_RUN_GROUP": "night-3"},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert reported.returncode == 0, reported.stdout + reported.stderr  # reported, not failing, when not asked
