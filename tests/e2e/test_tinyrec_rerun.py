"""A nightly re-runs in the same folder: the reference target's trainer finds no data the second
time, exits 0 without writing a checkpoint (PaddleOCR's contract), and the earlier night's
checkpoint must not make it pass (issue 10's real re-run test)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.tinyrec import CPU_CONFIG, LITE, pytest_tipc_argv

pytestmark = pytest.mark.slow

SAVE = "test_tipc/output/tinyrec/lite_train_lite_infer/norm_train_gpus_-1_autocast_fp32"


def train_only(repo: Path, here: Path) -> tuple[subprocess.CompletedProcess, dict]:
    argv = pytest_tipc_argv(here, "--config", CPU_CONFIG, "--mode", LITE, "-m", "train", "--tipc-repo", str(repo),
                            "--tipc-device", "cpu", "--tipc-no-report")  # fmt: skip
    done = subprocess.run(argv, cwd=here, capture_output=True, text=True, timeout=300)
    records = [json.loads(line) for line in (repo / SAVE).parent.joinpath("results.jsonl").read_text().splitlines()]
    info = json.loads((repo / SAVE).parent.joinpath("run.json").read_text())
    (train,) = [r for r in records if r["kind"] == "train" and r["run_id"] == info["run_id"]]
    return done, train


def test_stale_checkpoint_does_not_make_an_empty_training_pass(tinyrec, tmp_path):
    repo = tmp_path / "tinyrec"
    shutil.copytree(tinyrec, repo, ignore=shutil.ignore_patterns("test_tipc"))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")

    done, first = train_only(repo, tmp_path)
    assert first["status"] == "passed", done.stdout[-3000:]
    checkpoint = repo / SAVE / "latest.pdparams"
    stale = checkpoint.stat().st_mtime_ns

    (repo / "train_data/ic15_data/rec_gt_train.txt").write_text("")  # the loader finds no data
    done, second = train_only(repo, tmp_path)
    assert done.returncode == 1
    assert second["returncode"] == 0 and second["status"] == "failed"
    assert second["reason"] == (
        f"exit code 0 but it did not write ./{SAVE}/latest.pdparams: the file there is "
        "left from an earlier run (unchanged during this stage)"
    )
    assert checkpoint.stat().st_mtime_ns == stale  # the earlier night's checkpoint is left as it was
    assert "No Images in train dataset" in ((repo / SAVE).parent / second["log"]).read_text()  # relative to <mode>/
    # S.log and the figures are this run's part of the appended train.log: no step of the first run
    this_run = (repo / f"{SAVE}.log").read_text()
    assert "No Images in train dataset" in this_run and "global_step" not in this_run
    assert "global_step" in (repo / SAVE / "train.log").read_text()
    assert second["metrics"].get("steps", 0) == 0
