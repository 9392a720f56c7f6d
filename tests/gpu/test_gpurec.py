"""The stand-in GPU target: its logs read by tipc's parsers, its flags, its whole chain through tipc.

Needs PyTorch (``pip install -e '.[gpu-standin]'``): skipped without it. The GPU test needs a CUDA
device torch can use; the CPU chain shows the same contract (and the launcher's
``--nproc_per_node`` processes) on any machine.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import pytest

from tipc.metrics.evallog import eval_metrics
from tipc.metrics.trainlog import train_metrics

torch = pytest.importorskip("torch", reason="the stand-in GPU target computes with PyTorch: pip install torch")

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "examples" / "gpurec"
CONFIGS = "gpurec/train_linux_gpu_{}_infer_python_linux_gpu_cpu.txt"
LITE = "lite_train_lite_infer"
NO_CUDA = "no CUDA device torch can use (torch.cuda.is_available() is False): the GPU chain needs one"


@pytest.fixture(scope="module")
def gpurec():
    sys.path[:0] = [str(TARGET), str(TARGET.parent / "tinyrec")]
    try:
        from gpurec import predictor, program

        yield Namespace(program=program, predictor=predictor)
    finally:
        del sys.path[:2]


def test_a_step_line_reads_as_paddleocr_s(gpurec):
    line = gpurec.program.step_line(1, 5, 4, 0.003, {"acc": 0.5, "loss": 2.25}, 0.04, 0.8, 64, 4, 12)
    text = f"[2026/12/01 10:00:00] ppocr INFO: {line}, max_mem_reserved: 22 MB, max_mem_allocated: 9 MB\n"
    assert train_metrics(text * 2) == {"ips": 80.0, "loss": 2.25, "steps": 2}


def test_the_eval_block_reads_as_paddleocr_s(gpurec, capsys):
    from tinyrec.logger import get_logger

    gpurec.program.log_metrics(get_logger(), {"acc": 0.75, "norm_edit_dis": 0.9, "fps": 120.5})
    assert eval_metrics(capsys.readouterr().out) == {"acc": 0.75, "norm_edit_dis": 0.9, "fps": 120.5}


@pytest.mark.parametrize(
    ("flags", "error"),
    [
        ({"use_tensorrt": True}, "no TensorRT"),
        ({"precision": "int8"}, "int8 needs a quantised model"),
        ({"use_gpu": True}, None if torch.cuda.is_available() else "sees no CUDA device"),
        ({}, None),
    ],
    ids=["tensorrt", "int8", "gpu", "cpu"],
)
def test_flags_it_cannot_honour_are_refused_by_name(gpurec, flags, error):
    args = gpurec.predictor.argument_parser().parse_args(["--image_dir", "x", "--rec_model_dir", "y"])
    for key, value in flags.items():
        setattr(args, key, value)
    if error is None:
        assert gpurec.predictor.choose(args)[0].type == ("cuda" if args.use_gpu else "cpu")
    else:
        with pytest.raises(gpurec.predictor.UsageError, match=error):
            gpurec.predictor.choose(args)


@pytest.mark.parametrize(("text", "value"), [("True", True), ("y", True), ("1", True), ("False", False), ("no", False)])
def test_booleans_read_as_paddleocr_s_str2bool(gpurec, text, value):
    args = gpurec.predictor.argument_parser().parse_args(["--image_dir=x", "--rec_model_dir=y", f"--use_gpu={text}"])
    assert args.use_gpu is value


def run_chain(tmp_path: Path, config: str, *options: str) -> list[dict]:
    """``tipc prepare`` then ``tipc run`` of one config, in a copy of the target; its records."""
    made = shutil.ignore_patterns("test_tipc", "train_data", "inference", "output", "__pycache__")
    for name in ("gpurec", "tinyrec"):  # gpurec reads tinyrec's config and data modules beside it
        shutil.copytree(ROOT / "examples" / name, tmp_path / "examples" / name, ignore=made)
    shutil.copytree(ROOT / "test_configs" / "gpurec", tmp_path / "test_configs" / "gpurec")
    path = str(tmp_path / "test_configs" / config)
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "examples" / "gpurec" / "launcher")}
    tipc = [sys.executable, "-m", "tipc"]
    subprocess.run([*tipc, "prepare", "--config", path, "--mode", LITE], check=True, env=env, cwd=tmp_path)
    done = subprocess.run([*tipc, "run", "--config", path, "--mode", LITE, "--python", sys.executable, "--no-report",
                           *options], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    results = tmp_path / "examples" / "gpurec" / "test_tipc" / "output" / "gpurec" / LITE / "results.jsonl"
    return [json.loads(line) for line in results.read_text().splitlines()]


@pytest.mark.slow
def test_the_chain_on_cpu_processes_through_the_stand_in_launcher(tmp_path):
    """``--device cpu``: the 0,1 entry trains as two launched CPU processes (gloo), then the chain goes on."""
    records = run_chain(tmp_path, CONFIGS.format("multi_normal"), "--device", "cpu")
    ran = {r["id"]: r for r in records if r["status"] != "skipped"}
    assert {r["status"] for r in ran.values()} == {"passed"}
    launched = ran["norm_train-gpus_0,1-fp32::train"]
    assert "--nproc_per_node=2" in launched["argv"] and launched["metrics"]["ips"] > 0
    logs = tmp_path / "examples" / "gpurec" / "test_tipc" / "output" / "gpurec" / LITE
    assert sorted(p.name for p in logs.glob("*_launch_log/workerlog.*")) == ["workerlog.0", "workerlog.1"]
    assert all(r["metrics"]["cpu_rss_mb"] > 0 for r in ran.values() if r["kind"] == "infer")


@pytest.mark.slow
@pytest.mark.skipif(not torch.cuda.is_available(), reason=NO_CUDA)
def test_the_chain_on_the_gpu_records_its_gpu_figures(tmp_path):
    records = run_chain(tmp_path, CONFIGS.format("normal_normal"), "--device", "gpu")
    ran = [r for r in records if r["status"] != "skipped"]
    assert {r["status"] for r in ran} == {"passed"}
    gpu_infer = [r for r in ran if r["infer"] and r["infer"]["device"] == "gpu"]
    assert gpu_infer and all(r["metrics"]["gpu_rss_mb"] > 0 for r in gpu_infer)
    assert all(r["metrics"]["gpu_util"] is not None for r in gpu_infer)
