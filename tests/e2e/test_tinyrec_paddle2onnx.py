"""The reference target's paddle2onnx chain, for real: its export converted by paddle2onnx, predicted by ONNX
Runtime, and held to Paddle Inference's predictions of the same export (mode paddle2onnx_infer).

Three runs of ``tipc run`` on a copy of the prepared target: before the export (the conversion is blocked,
naming the missing model), after it (every stage passes, the predictions agree), and with a converter
that silently changes the model (the agreement check fails, naming an image). About a minute.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[2]
CONFIG = CHECKOUT / "test_configs" / "tinyrec" / "model_linux_cpu_normal_normal_paddle2onnx_python_linux_cpu.txt"
OUT = Path("test_tipc/output/tinyrec/paddle2onnx")
MODEL = "inference/tinyrec_infer/Student"
BIN = Path(sys.executable).parent
# A converter that changes what it converts: paddle2onnx, then the blank class's bias raised in the .onnx.
PERTURBING = """import subprocess, sys
import onnx
from onnx import numpy_helper
done = subprocess.run([sys.argv[1], *sys.argv[2:]])
save = next(a.split("=", 1)[1] for a in sys.argv[2:] if a.startswith("--save_file="))
model = onnx.load(save)
bias = [t for t in model.graph.initializer if len(t.dims) == 1][-1]
values = numpy_helper.to_array(bias).copy()
values[0] += 4.0
bias.CopyFrom(numpy_helper.from_array(values, bias.name))
onnx.save(model, save)
sys.exit(done.returncode)
"""

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("paddle2onnx", path=str(BIN)) is None or importlib.util.find_spec("onnxruntime") is None,
        reason="paddle2onnx and onnxruntime are not installed: pip install -e '.[onnx]' (make install does)",
    ),
]


def run_chain(repo: Path, config: Path) -> tuple[subprocess.CompletedProcess, dict[str, dict]]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    argv = [sys.executable, "-m", "tipc", "run", "--config", str(config), "--mode", "paddle2onnx_infer",
            "--repo", str(repo), "--python", sys.executable, "--device", "cpu", "--no-report"]  # fmt: skip
    done = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    lines = (repo / OUT / "results.jsonl").read_text().splitlines()
    return done, {r["id"].split("::", 1)[1]: r for r in map(json.loads, lines)}


def export(repo: Path) -> None:
    argv = [sys.executable, "tools/export_model.py", "-c", "configs/rec_tiny_distillation.yml", "-o",
            "Global.pretrained_model=./pretrained/rec_tiny_distillation", "Global.save_inference_dir=./inference/tinyrec_infer"]  # fmt: skip
    done = subprocess.run(argv, cwd=repo, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def test_the_onnx_chain_converts_predicts_and_agrees_with_paddle_inference(tinyrec, tmp_path):
    repo = tmp_path / "tinyrec"
    shutil.copytree(tinyrec, repo, ignore=shutil.ignore_patterns("test_tipc"))

    done, records = run_chain(repo, CONFIG)
    convert = records["convert_rec"]
    assert convert["status"] == "blocked", done.stdout[-3000:]
    assert f"reads ./{MODEL}/inference.json, which is not there" in convert["reason"]
    assert {records[n]["status"] for n in ("infer_onnx[cpu]", "infer_paddle[cpu]", "agree[cpu]")} == {"blocked"}

    export(repo)
    done, records = run_chain(repo, CONFIG)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert {name: r["status"] for name, r in records.items()} == dict.fromkeys(
        ("convert_rec", "infer_onnx[cpu]", "infer_paddle[cpu]", "agree[cpu]"), "passed"
    )
    assert (repo / MODEL / "model.onnx").is_file() and records["convert_rec"]["reason"] == ""
    agree = records["agree[cpu]"]
    assert agree["metrics"]["images"] == 8 and agree["metrics"]["findings"] == 0
    assert agree["metrics"]["largest_score_gap"] <= agree["metrics"]["score_tolerance"] == 1e-4  # the golden's
    lines = (repo / OUT / "results_paddle2onnx.log").read_text().splitlines()
    assert [line.split(" - ")[0] for line in lines] == [" Run successfully with command"] * 2  # the bash's two stages
    assert "--use_onnx=True" in lines[1] and f"--rec_model_dir=./{MODEL}/model.onnx" in lines[1]

    wrapper = tmp_path / "perturbing_paddle2onnx.py"
    wrapper.write_text(PERTURBING)
    changed = tmp_path / CONFIG.name
    text = CONFIG.read_text().replace("2onnx: paddle2onnx", f"2onnx:{sys.executable} {wrapper} {BIN / 'paddle2onnx'}")
    changed.write_text(text)
    done, records = run_chain(repo, changed)
    assert done.returncode == 1, done.stdout[-3000:]
    assert records["convert_rec"]["status"] == records["infer_onnx[cpu]"]["status"] == "passed"
    agree = records["agree[cpu]"]
    assert agree["status"] == "failed" and agree["metrics"]["findings"] > 0
    assert re.search(
        r"disagreement\(s\) of ONNX Runtime with Paddle Inference: infer_onnx\[cpu\] word_\d+\.png", agree["reason"]
    )
    assert "FINDING infer_onnx[cpu] word_" in (repo / OUT / agree["log"]).read_text()  # relative to <mode>/
