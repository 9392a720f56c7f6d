"""A real PaddleOCR detection chain (det_mv3_db_v2_0, lite_train_lite_infer) on CPU, from
``tipc prepare``'s offline data (docs/paddleocr-detection.md has the manual run and its figures).

Opt-in: ``TIPC_PADDLEOCR`` names a PaddleOCR checkout and ``TIPC_PADDLEOCR_PYTHON`` an interpreter
with paddle and PaddleOCR's requirements. The checkout is only read: the stages run in a folder of
symlinks to it, with their own ``train_data`` and outputs, and with a copy of the config that sets
``Global.pretrained_model=null`` (the weights it names come from Paddle's hosts) and keeps the
single-process entry of ``gpu_list`` (one training at a time on a small machine).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

CONFIG = "test_tipc/configs/det_mv3_db_v2_0/train_infer_python.txt"
LITE = "lite_train_lite_infer"
PRETRAINED = "Global.pretrained_model=./pretrain_models/MobileNetV3_large_x0_5_pretrained"
OWN = ("train_data", "test_tipc", "inference", "inference_results", "output", "pretrain_models", "log")


def _given() -> tuple[Path, str]:
    checkout, python = os.environ.get("TIPC_PADDLEOCR"), os.environ.get("TIPC_PADDLEOCR_PYTHON")
    if not checkout or not python:
        pytest.skip("set TIPC_PADDLEOCR=<PaddleOCR checkout> and TIPC_PADDLEOCR_PYTHON=<its interpreter> to run")
    if not (Path(checkout) / CONFIG).is_file():
        pytest.skip(f"TIPC_PADDLEOCR={checkout} has no {CONFIG}")
    return Path(checkout), python


def _workspace(checkout: Path, root: Path) -> Path:
    """Symlinks to the checkout's entries, with the config copied and its two offline edits made."""
    root.mkdir()
    for entry in checkout.iterdir():
        if entry.name not in OWN:
            (root / entry.name).symlink_to(entry)
    text = (checkout / CONFIG).read_text(encoding="utf-8")
    assert PRETRAINED in text and "gpu_list:0|0,1" in text, f"{CONFIG} changed upstream; update this test"
    config = root / CONFIG
    config.parent.mkdir(parents=True)
    config.write_text(
        text.replace(PRETRAINED, "Global.pretrained_model=null").replace("gpu_list:0|0,1", "gpu_list:0"),
        encoding="utf-8",
    )
    return root


def _tipc(*argv: str, cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PADDLE_", "FLAGS_", "PYTEST_"))}
    return subprocess.run(
        [sys.executable, "-m", "tipc", *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def test_detection_lite_chain_runs_on_cpu_from_offline_data(tmp_path):
    checkout, python = _given()
    repo = _workspace(checkout, tmp_path / "paddleocr")
    counts = ("--train-count", "4", "--eval-count", "2", "--infer-count", "2")
    prepared = _tipc("prepare", "--config", CONFIG, "--mode", LITE, *counts, cwd=repo, timeout=120)
    assert prepared.returncode == 0, prepared.stdout + prepared.stderr
    assert "train_data/icdar2015/text_localization/train_icdar2015_label.txt" in prepared.stdout

    run = _tipc(
        *("run", "--config", CONFIG, "--mode", LITE, "--python", python, "--device", "cpu"),
        *("--autolog-shim", "--no-report", "--timeout", "all=900"),
        cwd=repo,
        timeout=1800,
    )
    results = repo / "test_tipc/output/det_mv3_db_v2_0" / LITE / "results.jsonl"
    records = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    statuses = {r["id"]: r["status"] for r in records}
    assert run.returncode == 0, f"{statuses}\n{run.stdout[-3000:]}{run.stderr[-3000:]}"
    assert statuses == {
        "norm_train-gpus_0-null::train": "passed",
        "norm_train-gpus_0-null::export": "passed",
        "norm_train-gpus_0-null::infer[cpu-mkldnn_False-threads_6-fp32-bs1]": "passed",
        "norm_train-gpus_0-null::eval": "skipped",  # the config's eval is null
        "norm_train-gpus_0-null::infer[gpu-trt_False-fp32-bs1]": "skipped",  # no GPU with --device cpu
    }
    (train,) = [r for r in records if r["kind"] == "train"]
    assert train["metrics"]["steps"] == 2  # 4 images, batch 2, one epoch
